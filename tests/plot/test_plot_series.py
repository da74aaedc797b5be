"""The live-storage profile series, against a step-by-step brute force."""

from __future__ import annotations

from bisect import bisect_right

from engine_helpers import captures
from hypothesis import given, settings
from report_helpers import fragmented, over_capacity

from tilefit.bounds.deficit import bound
from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.plot.series import ProfileSeries, peak_caption, profile_series


def _run_at(series: ProfileSeries, step: int) -> int:
    return bisect_right(series.steps, step) - 1


def _inside(spans: tuple[tuple[int, int], ...], union: tuple[tuple[int, int], ...]) -> bool:
    return all(any(a <= s and e <= b for a, b in union) for s, e in spans)


def _brute_check(capture: Capture) -> None:
    series = profile_series(capture)
    report = bound(capture)
    assert series.steps[0] == 0 and series.steps[-1] == capture.horizon
    assert list(series.steps) == sorted(set(series.steps))
    assert len(series.live) == len(series.steps) - 1
    memory = capture.memory
    for step in range(capture.horizon):
        live = [r for r in capture.requests if r.start <= step < r.end]
        row = series.live[_run_at(series, step)]
        expected = tuple(sum(r.size for r in live if r.cls == cls) for cls in series.classes)
        assert row == expected
        if series.limit is None:
            continue
        inside = sum(
            r.size for r in live if _inside(memory.allowed(r.cls, r.interleaved), series.union)
        )
        wanted = min(capture.available, series.union_capacity + sum(row) - inside)
        assert series.limit[_run_at(series, step)] == wanted
    assert max(series.totals, default=0) == report.lower_bound
    assert series.peak_step == report.peak_step
    assert series.support_deficit == report.support_deficit


@settings(max_examples=80, deadline=None)
@given(captures())
def test_runs_and_limit_agree_with_every_step(capture: Capture) -> None:
    _brute_check(capture)


def test_the_examples_agree_with_every_step() -> None:
    _brute_check(fragmented())
    _brute_check(over_capacity())


def test_a_scratch_only_aperture_makes_the_limit_tighter_than_the_storage() -> None:
    # 64 B of variables and a 32 B scratch-only aperture: 80 B of weights cannot fit,
    # although 96 B are available and only 80 B are live.
    memory = Memory(96, (Range(0, 64, "variables"), Range(64, 96, "aperture", ("scratch",))))
    capture = Capture(
        "aperture",
        2,
        memory,
        (Request("w", 80, 0, 2, cls="resident"), Request("s", 8, 1, 2, cls="scratch")),
    )
    series = profile_series(capture)
    assert series.deficit == 0
    assert series.support_deficit == 16
    assert series.limit == (64, 72)  # |U| = 64, plus the scratch live outside U at step 1
    assert all(t > lim for t, lim in zip(series.totals, series.limit, strict=True))
    assert series.top == 96
    assert "support-aware deficit 16 B" in peak_caption(series)


def test_no_limit_line_when_no_union_is_tighter_than_the_storage() -> None:
    series = profile_series(over_capacity())
    assert series.limit is None
    assert series.deficit == 16
    assert peak_caption(series) == "peak 112 B at step 1: 16 B over the available storage"


def test_equal_neighbouring_steps_make_one_run() -> None:
    capture = Capture(
        "runs", 10, Memory(100, (Range(0, 100),)), (Request("a", 5, 0, 10), Request("b", 7, 3, 6))
    )
    series = profile_series(capture)
    assert series.steps == (0, 3, 6, 10)
    assert series.live == ((12 - 7,), (12,), (5,))
