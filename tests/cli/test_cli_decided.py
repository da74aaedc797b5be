"""The text output says which bound, strategy or search route decided the verdict (issue 27,
item 8): a "decided by" line under the verdict of `diagnose` and under the status of
`solve`. Before, the reader had to infer it from the deficits or the strategy's name."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from checkout import ROOT

from tilefit.cli import main
from tilefit.cli.diagnose import decided_by, diagnosis_lines, route_text
from tilefit.formats.load import read_capture
from tilefit.formats.save import write_capture
from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.search.routes import registered
from tilefit.verdicts.diagnose import Diagnosis, diagnose
from tilefit.verdicts.verdict import Verdict

EXAMPLES = ROOT / "examples"


def decided_line(capture: Capture) -> str:
    lines = diagnosis_lines(diagnose(capture, search=False))
    [line] = [line for line in lines if line.startswith("  decided by ")]
    return line


def test_each_bound_that_proves_a_deficit_is_named() -> None:
    live = read_capture(EXAMPLES / "1-0.json")
    assert decided_line(live) == (
        "  decided by the live storage lower bound: more bytes live at one step than available"
        " (16,328 B over at step 54)"
    )
    # 150 B live, 200 B available, but only 100 B of it open to their class.
    support = Capture(
        "support",
        2,
        Memory(200, (Range(0, 100), Range(100, 200, "aperture", ("scratch",)))),
        (Request("a", 75, 0, 2), Request("b", 75, 0, 2)),
    )
    assert decided_line(support).startswith("  decided by the support-aware bound: ")
    # 300 B live in 300 B, but 64-aligned: 128 + 128 + 100 = 356 B with the padding.
    aligned = Capture(
        "aligned",
        2,
        Memory(300, (Range(0, 300),)),
        tuple(Request(k, 100, 0, 2, alignment=64) for k in "abc"),
    )
    assert decided_line(aligned).startswith("  decided by the aligned lower bound: ")


def test_the_strategy_or_the_replay_that_fits_is_named() -> None:
    assert decided_line(read_capture(EXAMPLES / "0-0.json")) == (
        "  decided by a strategy other than production's: long-lived/first-fit, one greedy "
        "pass, no search"
    )
    assert decided_line(read_capture(EXAMPLES / "1-0-baseline.json")) == (
        "  decided by the production replay: alignment/first-fit places every unit"
    )


def test_a_search_route_is_named_with_its_member() -> None:
    d = diagnose(read_capture(EXAMPLES / "0-0.json"), search=False)
    proven = _as(d, verdict=Verdict.INFEASIBLE, strategy=None, route="elements")
    assert decided_by(proven) == "the search: route elements of its prove member"
    placed = _as(d, verdict=Verdict.FRAGMENTATION, strategy="search:anneal", route="anneal")
    assert decided_by(placed) == "the search: route anneal of its find member"
    assert decided_by(_as(d, verdict=Verdict.INFEASIBLE, route="pieces")) == (
        "the pieces bound, before any search"
    )
    assert decided_by(_as(d, verdict=Verdict.UNDETERMINED, strategy=None)) is None
    for route in registered():  # every route has its words
        assert route.name in route_text(route.name)


def test_solve_names_what_decided(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Three requests of 100 B live together: infeasible in 290 B, at the bound in 300 B.
    capture = Capture(
        "three",
        2,
        Memory(300, (Range(0, 300),)),
        tuple(Request(k, 100, 0, 2) for k in "abc"),
    )
    path = tmp_path / "three.json"
    write_capture(capture, path)
    main(["solve", str(path), "--minimize"])
    assert capsys.readouterr().out.splitlines()[:3] == [
        "solved: every request placed (3 requests)",
        "  decided by a greedy pass that reaches the lower bound: none can be lower",
        "lowest memory top: 300 (optimal)",
    ]
    main(["solve", str(path), "--capacity", "290", "--workers", "1", "--time-limit", "5"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("  decided by the search: route "), lines
    main(["solve", str(path), "--capacity", "290", "--node-limit", "1000"])
    assert capsys.readouterr().out.splitlines()[:2] == [
        "infeasible: the search was exhausted, no placement exists",
        "  decided by the exact search alone (--node-limit)",
    ]


def _as(d: Diagnosis, **answer: Any) -> Diagnosis:
    """``d`` with its answer changed."""
    return replace(d, **answer)
