"""The capacity answer names the bound that proved it, and every renderer reads it (issue 46,
item 2): before, ``diagnose``'s "decided by" line named the first bound with a deficit and
the plot's caption the largest, so a tile 10 B over by the live bound and 50 B over by the
support-aware bound was named differently by the two."""

from __future__ import annotations

from dataclasses import replace

import jsonschema
import pytest

from tilefit.bounds.capacity import Bound, Capacity, capacity_of
from tilefit.bounds.deficit import bound
from tilefit.cli.bound import bound_lines
from tilefit.cli.diagnose import diagnosis_lines
from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.output.jsonout import bound_json, diagnosis_json
from tilefit.output.schema import output_schema
from tilefit.plot.caption import verdict_caption
from tilefit.report.sections import verdict_html
from tilefit.verdicts.diagnose import Diagnosis, diagnose
from tilefit.verdicts.verdict import Verdict


def two_deficits() -> Capture:
    """210 B live in 200 B (10 B over by the live bound); ``y``'s 90 B may use only the top
    40 B (50 B over by the support-aware bound). Alignment 1: no padding."""
    memory = Memory(200, (Range(0, 160, "low", ("x",)), Range(160, 200, "high", ("y",))))
    requests = (Request("a", 120, 0, 2, cls="x"), Request("b", 90, 0, 2, cls="y"))
    return Capture("two-deficits", 2, memory, requests)


def cli_bound(d: Diagnosis) -> tuple[Bound, str]:
    """The bound the text output's "decided by" line names, and the figure it gives."""
    [line] = [line for line in diagnosis_lines(d) if line.startswith("  decided by ")]
    [named] = [b for b in Bound if line.startswith(f"  decided by {b.says}")]
    return named, line


def caption_bound(d: Diagnosis) -> tuple[Bound, str]:
    """The bound the plot's caption names, and its text."""
    text = verdict_caption(d).text
    [named] = [b for b in Bound if f" by {b.short}," in text]
    return named, text


def test_the_tile_differs_by_bound() -> None:
    report = bound(two_deficits())
    assert (report.deficit, report.support_deficit, report.aligned_deficit) == (10, 50, 10)
    # The rule: the bound that puts the tile furthest over, the plainer on a tie.
    assert capacity_of(report) == Capacity(Bound.SUPPORT, 50, report.support.step, report.leaving)
    assert report.leaving == 50  # the worst window's: the excess there


def test_the_cli_the_caption_the_json_and_the_report_say_the_answers_bound() -> None:
    d = diagnose(two_deficits(), search=False)
    assert d.verdict == Verdict.CAPACITY and d.capacity is not None
    assert d.capacity.bound == Bound.SUPPORT and d.capacity.over == 50
    figure = "50 B over at step 0"
    assert d.capacity.over_text == figure
    cli, line = cli_bound(d)
    caption, text = caption_bound(d)
    assert cli == caption == Bound.SUPPORT
    assert figure in line and figure in text
    # The live bound's 10 B, which the first-with-a-deficit rule named, is nowhere.
    assert "10 B over" not in line and "10 B over" not in text
    out = diagnosis_json(d)
    jsonschema.validate(out, output_schema("diagnose"))
    assert out["capacity"] == {"bound": "support", "over": 50, "step": 0, "leaving": 50}
    html = verdict_html(two_deficits(), d)
    assert Bound.SUPPORT.says in html and figure in html


@pytest.mark.parametrize("named", list(Bound))
def test_every_renderer_follows_the_answer_not_its_own_rule(named: Bound) -> None:
    """Each renderer says the bound the answer carries, whatever the bounds' figures: one
    that worked it out again from the deficits (10 B live, 50 B support-aware) would say
    the support-aware bound for every one of these."""
    d = diagnose(two_deficits(), search=False)
    told = replace(d, capacity=Capacity(named, 7, None if named == Bound.ALIGNED else 1, 3))
    cli, line = cli_bound(told)
    caption, text = caption_bound(told)
    assert cli == caption == named
    figure = told.capacity.over_text if told.capacity else ""
    assert figure in line and figure in text
    assert diagnosis_json(told)["capacity"]["bound"] == named.value
    assert named.says in verdict_html(two_deficits(), told)


def arcs_that_meet() -> Capture:
    """On a circle of 4 steps, a (steps 3, 0), b (0, 1) and c (1, 2, 3) meet pairwise but
    share no step, with a request held throughout: 35 B must lie apart, where no step holds
    more than 25 B; 30 B are available, so only the meeting bound proves the deficit."""
    memory = Memory(30, (Range(0, 30),))
    requests = (
        Request("a", 10, 3, 1),
        Request("b", 10, 0, 2),
        Request("c", 10, 1, 4),
        Request("held", 5, 0, 4),
    )
    return Capture("arcs", 4, memory, requests, period=4)


def test_a_deficit_only_the_meeting_bound_proves_is_named_alike_by_every_renderer() -> None:
    d = diagnose(arcs_that_meet(), search=False)
    assert d.verdict == Verdict.CAPACITY and d.capacity is not None
    assert d.bound.deficit == 0 and d.bound.meeting_deficit == 5
    assert d.capacity.bound == Bound.MEETING
    (by_cli, line), (by_caption, text) = cli_bound(d), caption_bound(d)
    assert by_cli == by_caption == Bound.MEETING
    figure = "5 B over in requests whose lifetimes meet pairwise"
    assert figure in line and figure in text
    assert diagnosis_json(d)["capacity"]["bound"] == "meeting"


@pytest.mark.parametrize("tile", [two_deficits, arcs_that_meet])
def test_bound_names_the_capacity_diagnose_names(tile: object) -> None:
    """``tilefit bound`` says the same bound, figure and bytes leaving as ``diagnose``."""
    assert callable(tile)
    capture = tile()
    d = diagnose(capture, search=False)
    assert d.capacity is not None
    out = bound_json(bound(capture))
    jsonschema.validate(out, output_schema("bound"))
    assert out["capacity"] == diagnosis_json(d)["capacity"]
    [line] = [line for line in bound_lines(bound(capture)) if line.startswith("capacity: ")]
    assert f"by {d.capacity.bound.short} ({d.capacity.over_text})" in line


def test_bound_says_no_capacity_where_every_bound_fits() -> None:
    roomy = replace(two_deficits(), memory=Memory(400, (Range(0, 400),)))
    out = bound_json(bound(roomy))
    assert out["capacity"] is None
    assert not [line for line in bound_lines(bound(roomy)) if line.startswith("capacity: ")]
