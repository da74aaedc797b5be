"""Issue 30, item 1: the bracket of the least memory top, and the descent that closes it.

When nothing decides, the least top that holds a placement lies between
``top_lower_bound`` and the closest placement's top; the descent lowers that
top by annealing in less extra memory. Both are checked against brute force on
tiny captures of every constraint kind, and on a full planted tile no member
decides, through ``diagnose`` and ``solve`` and their ``--json``.
"""

from __future__ import annotations

from dataclasses import replace

import jsonschema
import pytest
from hypothesis import strategies as st
from search_brute import brute_force
from search_captures import count_answers, tiny_captures
from test_search_minimize_iis import _cut_at

from tilefit.bounds.top import top_lower_bound
from tilefit.cli.diagnose import diagnosis_lines
from tilefit.cli.solve import solve_lines
from tilefit.generate.planted import PlantedRecipe, planted_tile
from tilefit.model.capture import Capture
from tilefit.model.deadline import Deadline
from tilefit.output.jsonout import diagnosis_json, solve_json
from tilefit.output.schema import output_schema
from tilefit.report.sections import verdict_html
from tilefit.report.svgbracket import bracket_html
from tilefit.search.blocks import build_model
from tilefit.search.bracket import Bracket, bracket_of
from tilefit.search.closest import Descent, closest, descend, extended
from tilefit.search.params import DEFAULT, ClosestParams, SearchParams
from tilefit.search.routes import SEARCH_DESCENT, TIMEOUT, Routes
from tilefit.verdicts.check import check
from tilefit.verdicts.diagnose import diagnose
from tilefit.verdicts.solving import solve

EXAMPLES = 60
QUICK = ClosestParams(probe_seconds=0.005)  # tiny captures: a probe places at once or never


def _at_top(capture: Capture, top: int) -> Capture:
    """The storage a memory top of ``top`` leaves: every range cut there, or the memory
    extended up to it as the closest placement's is."""
    size = capture.memory.size
    return _cut_at(capture, top) if top <= size else extended(capture, top - size)


def _least_top_lies_in_the_bracket(capture: Capture) -> bool:
    """Whether a closest placement exists (and so its bracket was compared)."""
    near = closest(capture, Deadline.start(0.2), params=QUICK)
    if near is None:
        return False
    assert check(extended(capture, near.overflow), near.placement).valid
    bracket = bracket_of(capture, build_model(capture), near.overflow)
    least = next(t for t in range(1, bracket.upper + 1) if brute_force(_at_top(capture, t)))
    assert bracket.lower <= least <= bracket.upper
    return True


def test_the_least_top_lies_in_the_bracket_as_brute_force_finds() -> None:
    compared, ran = count_answers(
        st.tuples(tiny_captures(max_requests=3)), EXAMPLES, _least_top_lies_in_the_bracket
    )
    # Measured: 52 of the 60 cases have a closest placement to bracket with.
    assert compared >= ran * 3 // 4


def _descent_stays_valid_and_never_rises(capture: Capture) -> bool:
    """Whether the greedy passes left an overflow for the descent to lower."""
    start = closest(capture, Deadline.start(600.0), params=QUICK, descent=False)
    if start is None or start.overflow == 0:
        return False
    lowered = descend(capture, start, Deadline.start(0.2), params=QUICK)
    assert lowered.overflow <= start.overflow
    assert check(extended(capture, lowered.overflow), lowered.placement).valid
    reach = capture.memory.size + lowered.overflow
    assert next(t for t in range(1, reach + 1) if brute_force(_at_top(capture, t))) <= reach
    return True


def test_the_descent_stays_valid_and_never_rises_against_brute_force() -> None:
    lowered, ran = count_answers(
        st.tuples(tiny_captures(max_requests=4)), EXAMPLES, _descent_stays_valid_and_never_rises
    )
    # Measured: 25 of the 60 cases leave an overflow for the descent to lower.
    assert lowered >= ran // 4


def test_a_bracket_is_never_empty() -> None:
    with pytest.raises(ValueError, match="empty"):
        Bracket(lower=10, upper=9, top=10, available=10)
    b = Bracket(lower=90, upper=112, top=100, available=100)
    assert (b.width, b.lacks, b.share(b.width)) == (22, 12, 0.22)
    assert Bracket(90, 95, 100, 100).lacks == 0


@pytest.fixture(scope="module")
def full_tile() -> Capture:
    """300 requests at 100%: no member decides it in a few seconds."""
    capture, _ = planted_tile(PlantedRecipe(requests=300, density=1.0, seed=5))
    return capture


def test_the_descent_lowers_the_greedy_passes_closest_placement(full_tile: Capture) -> None:
    start = closest(full_tile, Deadline.start(600.0), descent=False)
    assert start is not None and start.overflow > 0
    params = replace(DEFAULT.closest, probe_seconds=0.5)
    lowered = descend(full_tile, start, Deadline.start(5.0), params=params)
    assert lowered.strategy == SEARCH_DESCENT
    assert 0 < lowered.overflow < start.overflow
    assert check(extended(full_tile, lowered.overflow), lowered.placement).valid


def test_an_undetermined_diagnosis_brackets_the_least_top(full_tile: Capture) -> None:
    d = diagnose(full_tile, time_limit=3.0, workers=1)
    assert d.verdict == "undetermined" and d.closest is not None and d.bracket is not None
    b = d.bracket
    assert b.lower == top_lower_bound(full_tile, build_model(full_tile).lowest_tops())
    assert b.upper == full_tile.memory.size + d.closest.overflow > b.lower
    assert check(extended(full_tile, d.closest.overflow), d.closest.placement).valid
    out = diagnosis_json(d)
    jsonschema.validate(out, output_schema("diagnose"))
    assert out["bracket"] == {
        "lower": b.lower,
        "upper": b.upper,
        "top": full_tile.memory.size,
        "width": b.width,
        "lacks": d.closest.overflow,
    }
    text = "\n".join(diagnosis_lines(d))
    assert f"the least memory top that fits lies in [{b.lower}, {b.upper}] B" in text
    top, lacks = full_tile.memory.size, d.closest.overflow
    assert f"from {top} to {top + lacks} B, every request is placed" in text
    assert "not written" not in text
    assert "no placement within the memory: out.json not written" in "\n".join(
        diagnosis_lines(d, "out.json")
    )
    assert bracket_html(b) in verdict_html(full_tile, d)  # the report draws it


def test_without_the_search_diagnose_does_not_descend(full_tile: Capture) -> None:
    d = diagnose(full_tile, time_limit=3.0, search=False)
    assert d.verdict == "undetermined" and d.closest is not None and d.bracket is not None
    assert d.closest.strategy != SEARCH_DESCENT


@pytest.mark.parametrize("minimize", [False, True])
def test_a_timed_out_solve_brackets_the_least_top(full_tile: Capture, minimize: bool) -> None:
    found = solve(full_tile, 3.0, minimize=minimize, workers=1)
    assert found.status == TIMEOUT and found.placement is None
    assert found.closest is not None and found.bracket is not None
    assert found.bracket.upper == full_tile.memory.size + found.closest.overflow
    assert check(extended(full_tile, found.closest.overflow), found.closest.placement).valid
    out = solve_json(found)
    jsonschema.validate(out, output_schema("solve"))
    assert out["bracket"]["upper"] == found.bracket.upper
    text = "\n".join(solve_lines(full_tile, found))
    top = full_tile.memory.size
    raised = f"the memory's top raised by {found.closest.overflow} B, from {top}"
    assert f"closest placement found: with {raised} to {found.bracket.upper} B" in text
    assert f"lies in [{found.bracket.lower}, {found.bracket.upper}] B" in text
    assert "lowest memory top: at least" not in text  # the bracket says more


def test_the_descent_s_parameters_are_checked() -> None:
    with pytest.raises(ValueError, match=r"ClosestParams.first_cut: 0 is not a number in"):
        ClosestParams(first_cut=0)
    with pytest.raises(ValueError, match=r"ClosestParams.share: 1.5 is not a number in"):
        ClosestParams(share=1.5)
    # The descent is switched as a route, the one switch of every route.
    off = SearchParams(routes=Routes.without([Descent.name]))
    assert not off.routes.on(Descent)
