"""Overloaded steps and windows: every place where no placement can exist.

The bounds name the worst step; a user who trims only that step fails again
at the next one. Here every step (run of steps between two starts or ends)
where the live requests need more than they may use is listed, plain (live
bytes over available storage) and support-aware (the requests whose allowed
set lies inside a union of allowed sets, over that union's bytes). Adjacent
overloaded steps form a **window**; each window says how many bytes must
leave it and which requests are live there, those live in the most windows
first: shrinking one of them helps in every window it lives in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tilefit.bounds.columns import UnionTable, chunk_rows
from tilefit.model.capture import Capture, Request

if TYPE_CHECKING:  # numpy.typing is for the type checker only
    from numpy.typing import NDArray


@dataclass(frozen=True, slots=True)
class OverStep:
    """Steps [start, end), with one set of live requests, that need more than they may use."""

    start: int
    end: int
    live: int  # bytes live
    over: int  # live bytes over available storage (<= 0 when only a union is short)
    demand: int  # bytes live in the tightest union of allowed sets
    usable: int  # that union's bytes
    ranges: tuple[str, ...]  # the ranges the union draws on

    @property
    def excess(self) -> int:
        """Bytes over: the plain or the support-aware figure, whichever is larger."""
        return max(self.over, self.demand - self.usable)


@dataclass(frozen=True, slots=True)
class WindowRequest:
    """A request live at a window's worst step, and in how many windows it lives."""

    id: str
    size: int
    cls: str
    label: str | None
    windows: int  # overloaded windows whose worst step it is live at
    source: str | None = None  # the code that makes it (Request.source)


@dataclass(frozen=True, slots=True)
class Window:
    """A maximal run of adjacent overloaded steps."""

    start: int
    end: int
    steps: tuple[OverStep, ...]
    worst: OverStep  # the step with the largest excess (the earliest on ties)
    must_leave: int  # the worst excess plus the alignment padding of the requests counted there
    requests: tuple[WindowRequest, ...]  # counted at the worst step: most windows, largest first

    @property
    def excess(self) -> int:
        return self.worst.excess

    @property
    def step_count(self) -> int:
        """Steps in the window (an entry of ``steps`` may run over several)."""
        return sum(s.end - s.start for s in self.steps)

    @property
    def by_source(self) -> tuple[tuple[str, int, int], ...]:
        """(source, bytes, requests) of the requests counted here, most bytes first;
        empty when no request names its source."""
        totals: dict[str, list[int]] = {}
        for r in self.requests:
            if r.source is not None:
                entry = totals.setdefault(r.source, [0, 0])
                entry[0] += r.size
                entry[1] += 1
        ranked = sorted(totals.items(), key=lambda item: (-item[1][0], item[0]))
        return tuple((source, total, count) for source, (total, count) in ranked)

    @property
    def shared(self) -> tuple[WindowRequest, ...]:
        """Requests live in other overloaded windows too."""
        return tuple(r for r in self.requests if r.windows > 1)


def overloaded_windows(capture: Capture, table: UnionTable) -> tuple[Window, ...]:
    """Every overloaded window, in time order."""
    steps = _overloaded_steps(capture, table)
    runs: list[list[OverStep]] = []
    for s in steps:
        if runs and runs[-1][-1].end == s.start:
            runs[-1].append(s)
        else:
            runs.append([s])
    worst = [max(run, key=lambda s: (s.excess, -s.start)) for run in runs]
    starts = np.array([r.start for r in capture.requests], dtype=np.int64)
    ends = np.array([r.end for r in capture.requests], dtype=np.int64)
    counted = [_counted(capture, table, w, starts, ends) for w in worst]
    windows_of: dict[int, int] = {}
    for members in counted:
        for k in members:
            windows_of[k] = windows_of.get(k, 0) + 1
    requests = capture.requests
    windows: list[Window] = []
    for run, w, members in zip(runs, worst, counted, strict=True):
        ranked = sorted(members, key=lambda k: (-windows_of[k], -requests[k].size, k))
        padding = sum(-requests[k].size % requests[k].alignment for k in members)
        windows.append(
            Window(
                start=run[0].start,
                end=run[-1].end,
                steps=tuple(run),
                worst=w,
                must_leave=w.excess + padding,
                requests=tuple(_window_request(requests[k], windows_of[k]) for k in ranked),
            )
        )
    return tuple(windows)


def _overloaded_steps(capture: Capture, table: UnionTable) -> list[OverStep]:
    live = table.live
    if len(live) == 0 or len(table.unions) == 0:
        return []
    capacity = np.array(table.capacity, dtype=live.dtype)
    # Only unions short somewhere can make a step overloaded; usually a handful.
    short = [u for u in range(len(table.unions)) if table.peaks[u] > table.capacity[u]]
    if not short:
        return []
    total = live.sum(axis=1)
    available = capture.available
    found: list[OverStep] = []
    chunk = chunk_rows(len(short))
    for lo in range(0, len(live), chunk):
        demand = live[lo : lo + chunk] @ table.inside[:, short]
        excess = demand - capacity[short]
        tightest = np.argmax(excess, axis=1)
        for row in np.flatnonzero(excess.max(axis=1) > 0):
            k = lo + int(row)
            u = short[int(tightest[row])]
            found.append(
                OverStep(
                    start=table.steps[k],
                    end=table.steps[k + 1],
                    live=int(total[k]),
                    over=int(total[k]) - available,
                    demand=int(demand[row, tightest[row]]),
                    usable=table.capacity[u],
                    ranges=table.range_names(capture.memory, u),
                )
            )
    return found


def _counted(
    capture: Capture, table: UnionTable, step: OverStep, starts: NDArray[Any], ends: NDArray[Any]
) -> list[int]:
    """Indices of the requests live at the step that its excess counts, in capture order.

    Where the plain deficit is the larger, every live request counts; where a
    union of allowed sets is the tighter, only those whose allowed set lies inside it.
    """
    t = step.start
    live = [int(k) for k in np.flatnonzero((starts <= t) & (t < ends))]
    if step.over >= step.demand - step.usable:
        return live
    row = table.steps.index(t)
    excess = table.live[row] @ table.inside - np.array(table.capacity, dtype=table.live.dtype)
    kinds = table.inside_union(int(np.argmax(excess)))
    requests = capture.requests
    return [k for k in live if (requests[k].cls, requests[k].interleaved) in kinds]


def _window_request(r: Request, windows: int) -> WindowRequest:
    return WindowRequest(r.id, r.size, r.cls, r.label, windows, r.source)
