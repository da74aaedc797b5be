"""The live-storage profile as drawable series: the picture of a capacity deficit.

Bytes live at every step, stacked by class, against two lines:

- the available storage;
- the support-aware limit of the tightest union U of allowed sets found by
  ``tilefit.bounds.deficit.support_bound``: the requests whose allowed set lies inside
  U can only use |U| bytes, so at step t no placement holds more than
  ``min(available, |U| + bytes live at t outside U)``. Where the stack rises
  above this line, the support-aware deficit shows, even when it stays under
  the available storage (storage open only to some classes).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from tilefit.bounds.deficit import BoundReport, bound, live_profile
from tilefit.bounds.live import live_steps
from tilefit.model.capture import Capture, Interval
from tilefit.plot.windows import WindowMark, window_marks


@dataclass(frozen=True)
class ProfileSeries:
    horizon: int
    classes: tuple[str, ...]  # stacked bottom to top, in order of first appearance
    steps: tuple[int, ...]  # run k covers steps [steps[k], steps[k + 1]); last is the horizon
    live: tuple[tuple[int, ...], ...]  # per run, bytes live by class
    limit: tuple[int, ...] | None  # per run, the support-aware limit; None: no tighter union
    available: int
    lower_bound: int
    peak_step: int
    deficit: int
    support_deficit: int
    support_step: int
    union: tuple[Interval, ...]  # the tightest union of allowed sets
    union_capacity: int
    windows: tuple[WindowMark, ...] = ()  # every overloaded window, in time order

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(row) for row in self.live)

    @property
    def top(self) -> int:
        """The highest value any series reaches."""
        return max([self.available, self.lower_bound, *(self.limit or ())])


def profile_series(capture: Capture, report: BoundReport | None = None) -> ProfileSeries:
    report = report if report is not None else bound(capture)
    profile = live_profile(capture)
    support = report.support
    tighter = bool(support.union) and support.capacity < report.available
    inside = _inside_by_step(capture, support.union) if tighter else {}
    cuts = sorted({0, capture.horizon, *(s.start for s in profile.segments), *inside})
    starts = [s.start for s in profile.segments]
    inside_steps = sorted(inside)
    live: list[tuple[int, ...]] = []
    limit: list[int] = []
    steps: list[int] = []
    for step in cuts[:-1]:
        row = profile.segments[bisect_right(starts, step) - 1].live if profile.segments else ()
        demand = inside[inside_steps[bisect_right(inside_steps, step) - 1]] if inside else 0
        cap = min(report.available, support.capacity + sum(row) - demand)
        if live and live[-1] == row and (not tighter or limit[-1] == cap):
            continue  # runs that look the same are drawn as one
        steps.append(step)
        live.append(row)
        limit.append(cap)
    steps.append(capture.horizon)
    return ProfileSeries(
        horizon=capture.horizon,
        classes=profile.classes,
        steps=tuple(steps),
        live=tuple(live),
        limit=tuple(limit) if tighter else None,
        available=report.available,
        lower_bound=report.lower_bound,
        peak_step=report.peak_step,
        deficit=report.deficit,
        support_deficit=report.support_deficit,
        support_step=support.step,
        union=support.union,
        union_capacity=support.capacity,
        windows=window_marks(report.windows),
    )


def _inside_by_step(capture: Capture, union: tuple[Interval, ...]) -> dict[int, int]:
    """Step -> bytes live from it on (until the next key) whose allowed set lies inside union."""
    memory = capture.memory
    verdict: dict[tuple[str, bool], bool] = {}
    spans = [(0, 0, 0)]  # step 0 is always a key
    for r in capture.requests:
        key = (r.cls, r.interleaved)
        if key not in verdict:
            verdict[key] = _within(memory.allowed(*key), union)
        if verdict[key]:
            spans.append((r.start, r.end, r.size))
    return dict(live_steps(spans))


def _within(spans: tuple[Interval, ...], union: tuple[Interval, ...]) -> bool:
    return all(any(u0 <= s0 and s1 <= u1 for u0, u1 in union) for s0, s1 in spans)


def peak_caption(series: ProfileSeries) -> str:
    """One line saying how high the peak is and what it is short of."""
    text = f"peak {series.lower_bound:,} B at step {series.peak_step}"
    if series.deficit:
        text += f": {series.deficit:,} B over the available storage"
    if series.support_deficit > series.deficit:
        text += f"; support-aware deficit {series.support_deficit:,} B"
        text += f" at step {series.support_step}"
    return text
