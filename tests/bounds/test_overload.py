"""Overloaded steps and windows agree with brute force, and 1-0's four casts are pinned."""

from __future__ import annotations

import json
from itertools import combinations

import pytest
from checkout import ROOT
from hypothesis import given, settings
from test_bounds import allowed, captures, live_at

from tilefit.bounds.deficit import bound
from tilefit.cli import main
from tilefit.formats.load import read_capture
from tilefit.model.capture import Capture, Memory, Range, Request

EXAMPLES = ROOT / "examples"

# 1-0: each micro-batch's late cast overloads its own step.
CASTS = [(12, 6_608), (26, 8_904), (40, 13_832), (54, 16_328)]
LIVE = {12: 505_480, 26: 507_776, 40: 512_704, 54: 515_200}
MUST = {12: 6_632, 26: 8_928, 40: 13_856, 54: 16_360}  # plus the alignment padding there


def brute_excess(capture: Capture, t: int) -> int:
    """The most bytes over at step t: over every union of allowed sets (the full one included)."""
    memory = capture.memory
    live = live_at(capture, t)
    sets = sorted({allowed(memory, r) for r in capture.requests}, key=sorted)
    worst = sum(r.size for r in live) - sum(r.end - r.start for r in memory.ranges)
    for k in range(len(sets) + 1):
        for chosen in combinations(sets, k):
            union = frozenset().union(*chosen)
            demand = sum(r.size for r in live if allowed(memory, r) <= union)
            worst = max(worst, demand - len(union))
    return worst


@settings(max_examples=200, deadline=None)
@given(captures())
def test_every_overloaded_step_and_its_excess_match_brute_force(capture: Capture) -> None:
    report = bound(capture)
    found = {t: s.excess for w in report.windows for s in w.steps for t in range(s.start, s.end)}
    expected = {t: e for t in range(capture.horizon) if (e := brute_excess(capture, t)) > 0}
    assert found == expected
    # Windows are maximal runs of adjacent overloaded steps, in time order.
    for a, b in zip(report.windows, report.windows[1:], strict=False):
        assert a.end < b.start
    for w in report.windows:
        assert all(x.end == y.start for x, y in zip(w.steps, w.steps[1:], strict=False))
        assert w.excess == max(s.excess for s in w.steps)
        assert w.must_leave >= w.excess
    assert report.must_leave == max((w.must_leave for w in report.windows), default=0)
    assert (report.must_leave > 0) == (report.support_deficit > 0)


def test_requests_live_in_more_windows_rank_first() -> None:
    memory = Memory(100, (Range(0, 100, "main"),))
    capture = Capture(
        "t",
        10,
        memory,
        (
            Request("big1", 70, 1, 2),
            Request("weight", 40, 0, 10),
            Request("big2", 70, 5, 7, alignment=8),  # 70 B take 72 once aligned: 2 B padding
            Request("small", 15, 5, 6),
        ),
    )
    first, second = bound(capture).windows
    assert (first.start, first.end, first.excess, first.must_leave) == (1, 2, 10, 10)
    assert (second.start, second.end, second.excess, second.must_leave) == (5, 7, 25, 27)
    assert [(s.start, s.end, s.live, s.over) for s in second.steps] == [
        (5, 6, 125, 25),
        (6, 7, 110, 10),
    ]
    assert second.worst.start == 5
    assert [(r.id, r.windows) for r in second.requests] == [
        ("weight", 2),
        ("big2", 1),
        ("small", 1),
    ]
    assert [r.id for r in second.shared] == ["weight"]


def test_a_union_short_where_the_total_fits_counts_only_its_requests() -> None:
    # 100 B in all, but resident requests may use only the 80 B of "main".
    memory = Memory(100, (Range(0, 80, "main"), Range(80, 100, "host", ("scratch",))))
    capture = Capture(
        "t",
        4,
        memory,
        (
            Request("w", 85, 1, 3, cls="resident"),
            Request("s", 10, 0, 4, cls="scratch"),
        ),
    )
    (window,) = bound(capture).windows
    (step,) = window.steps
    assert (step.start, step.end, step.live, step.over) == (1, 3, 95, -5)
    assert (step.demand, step.usable, step.ranges, step.excess) == (85, 80, ("main",), 5)
    assert [r.id for r in window.requests] == ["w"]


def test_1_0_is_overloaded_at_every_micro_batch_cast() -> None:
    report = bound(read_capture(EXAMPLES / "1-0.json"))
    assert [(w.start, w.end, w.excess) for w in report.windows] == [
        (t, t + 1, over) for t, over in CASTS
    ]
    assert [w.must_leave for w in report.windows] == [MUST[t] for t, _ in CASTS]
    # The resident weights are live in every window, so they rank first in each.
    for w in report.windows:
        assert w.requests[0].id == "w3.attn_qkv[0]" and w.requests[0].windows == 4


@pytest.mark.parametrize("command", ["bound", "diagnose"])
def test_1_0_text_and_json_list_the_four_windows(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(EXAMPLES / "1-0.json")
    main([command, path])
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    for k, (t, over) in enumerate(CASTS, 1):
        live, must = LIVE[t], MUST[t]
        assert [
            str(k),
            str(t),
            str(live),
            "B",
            "498872",
            "B",
            str(over),
            "B",
            str(must),
            "B",
        ] in rows
    main([command, path, "--json"])
    data = json.loads(capsys.readouterr().out)
    windows = data["overloaded_windows"]
    assert [(w["start"], w["end"], w["excess"]) for w in windows] == [
        (t, t + 1, over) for t, over in CASTS
    ]
    assert [w["steps"][0]["over"] for w in windows] == [over for _, over in CASTS]
