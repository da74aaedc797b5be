"""Bounds: storage that must be live at once, whatever the placement.

Two lower bounds from the spec (section "Bounds"), both ignoring alignment
gaps and bank separation, so a deficit in either proves that no placement
exists:

- the live storage lower bound: the most bytes live at one step, against the
  available storage;
- the support-aware bound: at every step t and for every union U of allowed
  sets, the requests live at t whose allowed set lies inside U need at most
  |U| bytes. It catches storage open only to some classes (a scratch-only
  host aperture counts toward available storage but cannot hold weights).

Both come from one sweep over the steps where something starts or ends.
Unions are enumerated over the distinct allowed sets: all 2^k of them for
k <= MAX_EXHAUSTIVE_SETS distinct sets; past that, only the unions of at most
two sets, their complements and the empty and full unions (the report then
says ``exhaustive=False``, and the deficit is still a valid lower bound).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tilefit.model.capture import Capture, Interval, Request

MAX_EXHAUSTIVE_SETS = 12
_CHUNK_CELLS = 1 << 22  # rows x unions per matrix product, to bound memory


@dataclass(frozen=True, slots=True)
class Contributor:
    """A request live at the peak."""

    id: str
    size: int
    cls: str
    alignment: int
    label: str | None


@dataclass(frozen=True, slots=True)
class SupportBound:
    """The tightest (step, union of allowed sets) found."""

    deficit: int  # max(0, demand - capacity)
    step: int  # earliest step where this union's demand peaks
    demand: int  # bytes live at the step whose allowed set lies inside the union
    capacity: int  # |U|: bytes in the union
    union: tuple[Interval, ...]
    classes: tuple[str, ...]  # classes counted in the demand that are live at the step
    ranges: tuple[str, ...]  # the ranges the union draws on
    exhaustive: bool  # every union of allowed sets was tried


@dataclass(frozen=True)
class BoundReport:
    available: int
    lower_bound: int  # most bytes live at one step
    peak_step: int  # earliest step with that many
    contributors: tuple[Contributor, ...]  # live at the peak, largest first
    class_totals: tuple[tuple[str, int], ...]  # bytes live at the peak by class, largest first
    support: SupportBound

    @property
    def deficit(self) -> int:
        return max(0, self.lower_bound - self.available)

    @property
    def support_deficit(self) -> int:
        return self.support.deficit


@dataclass(frozen=True, slots=True)
class Segment:
    """Steps [start, end) during which the same bytes are live."""

    start: int
    end: int
    live: tuple[int, ...]  # bytes live by class, in the order of LiveProfile.classes

    @property
    def total(self) -> int:
        return sum(self.live)


@dataclass(frozen=True)
class LiveProfile:
    """Bytes live at every step of [0, horizon), by class, as runs of equal steps."""

    horizon: int
    classes: tuple[str, ...]  # in order of first appearance in the capture
    segments: tuple[Segment, ...]  # cover [0, horizon), adjacent ones differ


def bound(capture: Capture) -> BoundReport:
    """Both bounds, the peak step and who is live there."""
    requests = capture.requests
    steps, live = _live_by(capture, [0] * len(requests), 1)
    peak_row = int(np.argmax(live[:, 0]))  # the first maximum: the earliest step
    peak = steps[peak_row]
    at_peak = sorted(
        (k for k, r in enumerate(requests) if r.start <= peak < r.end),
        key=lambda k: (-requests[k].size, k),
    )
    contributors = tuple(
        Contributor(r.id, r.size, r.cls, r.alignment, r.label)
        for r in (requests[k] for k in at_peak)
    )
    totals: dict[str, int] = {}
    for c in contributors:
        totals[c.cls] = totals.get(c.cls, 0) + c.size
    return BoundReport(
        available=capture.available,
        lower_bound=int(live[peak_row, 0]),
        peak_step=peak,
        contributors=contributors,
        class_totals=tuple(sorted(totals.items(), key=lambda item: (-item[1], item[0]))),
        support=support_bound(capture),
    )


def live_profile(capture: Capture) -> LiveProfile:
    """Bytes live by class over [0, horizon), for plotting and reports."""
    classes = tuple(dict.fromkeys(r.cls for r in capture.requests))
    column = {cls: k for k, cls in enumerate(classes)}
    steps, live = _live_by(capture, [column[r.cls] for r in capture.requests], len(classes))
    segments: list[Segment] = []
    for k, row in enumerate(live):
        values = tuple(int(v) for v in row)
        if segments and segments[-1].live == values:
            segments[-1] = Segment(segments[-1].start, steps[k + 1], values)
        else:
            segments.append(Segment(steps[k], steps[k + 1], values))
    return LiveProfile(capture.horizon, classes, tuple(segments))


def support_bound(capture: Capture) -> SupportBound:
    """The worst (step, union of allowed sets): most demand over capacity."""
    memory = capture.memory
    requests = capture.requests
    # Requests group by allowed set; the allowed set depends on (class, interleaved).
    sets: list[tuple[Interval, ...]] = []
    group: dict[tuple[str, bool], int] = {}
    for r in requests:
        key = (r.cls, r.interleaved)
        if key not in group:
            allowed = memory.allowed(*key)
            if allowed not in sets:
                sets.append(allowed)
            group[key] = sets.index(allowed)
    steps, live = _live_by(capture, [group[(r.cls, r.interleaved)] for r in requests], len(sets))

    # Atoms: the pieces cut by every set boundary; a set or a union is a bitmask of atoms.
    cuts = sorted({p for spans in sets for span in spans for p in span})
    atom = {p: k for k, p in enumerate(cuts)}
    masks = [sum(1 << k for s, e in spans for k in range(atom[s], atom[e])) for spans in sets]
    unions, exhaustive = _unions(masks)
    capacity = [sum(cuts[k + 1] - cuts[k] for k in _bits(u)) for u in unions]
    inside = np.array(
        [[1 if m & ~u == 0 else 0 for u in unions] for m in masks], dtype=live.dtype
    ).reshape(len(masks), len(unions))

    peaks = _column_maxima(_local_peaks(live), inside)
    excess = [int(d) - c for d, c in zip(peaks, capacity, strict=True)]
    # A union nothing lives in (the empty one, say) says nothing: the worst is the
    # tightest union with demand, the smallest on ties since it pinpoints the shortage.
    candidates = [u for u in range(len(unions)) if peaks[u] > 0] or list(range(len(unions)))
    worst = min(candidates, key=lambda u: (-excess[u], capacity[u], u))
    demand = live @ inside[:, worst]
    row = int(np.argmax(demand))
    step = steps[row]
    union = _spans(unions[worst], cuts)
    live_groups = {g for g in range(len(sets)) if inside[g, worst] and live[row, g] > 0}
    return SupportBound(
        deficit=max(0, excess[worst]),
        step=step,
        demand=int(demand[row]),
        capacity=capacity[worst],
        union=union,
        classes=tuple(_kind(cls, il) for (cls, il), g in group.items() if g in live_groups),
        ranges=tuple(
            r.name or f"[{r.start}, {r.end})"
            for r in memory.ranges
            if any(r.start < e and s < r.end for s, e in union)
        ),
        exhaustive=exhaustive,
    )


def _live_by(
    capture: Capture, columns: Sequence[int], width: int
) -> tuple[list[int], NDArray[Any]]:
    """Steps, and bytes live in each column during [steps[k], steps[k + 1]) as row k.

    The steps are 0, the horizon and every start and end, so the live bytes
    are constant between two of them.
    """
    requests = capture.requests
    steps = sorted({0, capture.horizon, *(r.start for r in requests), *(r.end for r in requests)})
    row = {s: k for k, s in enumerate(steps)}
    dtype = _dtype(requests)
    delta: NDArray[Any] = np.zeros((len(steps), width), dtype=dtype)
    if requests:
        cols = np.array(columns, dtype=np.intp)
        sizes: NDArray[Any] = np.array([r.size for r in requests], dtype=dtype)
        np.add.at(delta, (np.array([row[r.start] for r in requests]), cols), sizes)
        np.add.at(delta, (np.array([row[r.end] for r in requests]), cols), -sizes)
    return steps, np.cumsum(delta, axis=0)[:-1]


def _dtype(requests: Sequence[Request]) -> type:
    # Floats make the matrix products fast and stay exact below 2**53 bytes in all.
    return np.float64 if sum(r.size for r in requests) < 2**53 else object


def _local_peaks(live: NDArray[Any]) -> NDArray[Any]:
    """The rows not dominated (column by column) by a neighbour: the only candidate maxima."""
    keep = np.ones(len(live), dtype=bool)
    if len(live) > 1:
        # An earlier equal row is kept, so equal neighbours never drop each other.
        no_less = np.all(live[:-1] >= live[1:], axis=1).astype(bool)
        no_more = np.all(live[:-1] <= live[1:], axis=1).astype(bool)
        keep[1:] &= ~no_less
        keep[:-1] &= ~(no_more & ~no_less)
    return live[keep]


def _column_maxima(rows: NDArray[Any], inside: NDArray[Any]) -> list[Any]:
    """For every union (column of ``inside``), the most demand over the rows."""
    if len(rows) == 0 or inside.shape[1] == 0:
        return [0] * inside.shape[1]
    step = max(1, _CHUNK_CELLS // inside.shape[1])
    best = None
    for lo in range(0, len(rows), step):
        chunk = (rows[lo : lo + step] @ inside).max(axis=0)
        best = chunk if best is None else np.maximum(best, chunk)
    assert best is not None
    return list(best)


def _unions(masks: list[int]) -> tuple[list[int], bool]:
    """Distinct unions of the sets, in a fixed order, and whether they are all of them."""
    k = len(masks)
    if k <= MAX_EXHAUSTIVE_SETS:
        subsets: list[tuple[int, ...]] = [
            c for size in range(k + 1) for c in combinations(range(k), size)
        ]
    else:
        few = [c for size in range(3) for c in combinations(range(k), size)]
        subsets = few + [tuple(g for g in range(k) if g not in c) for c in few]
    seen: dict[int, None] = {}
    for subset in subsets:
        union = 0
        for g in subset:
            union |= masks[g]
        seen.setdefault(union)
    return list(seen), k <= MAX_EXHAUSTIVE_SETS


def _bits(mask: int) -> list[int]:
    return [k for k in range(mask.bit_length()) if mask >> k & 1]


def _spans(mask: int, cuts: list[int]) -> tuple[Interval, ...]:
    spans: list[Interval] = []
    for k in _bits(mask):
        if spans and spans[-1][1] == cuts[k]:
            spans[-1] = (spans[-1][0], cuts[k + 1])
        else:
            spans.append((cuts[k], cuts[k + 1]))
    return tuple(spans)


def _kind(cls: str, interleaved: bool) -> str:
    return f"{cls} (interleaved)" if interleaved else cls
