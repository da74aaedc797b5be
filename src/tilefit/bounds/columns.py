"""Live bytes over the steps, by column and by union of allowed sets.

One sweep over the steps where something starts or ends gives the bytes live
in each column (a class, an allowed set) between two such steps. The
support-aware bound (spec, "Bounds") and the overloaded steps both read the
same table: every distinct allowed set, the unions of them worth trying, the
capacity of each and which sets lie inside which union.

Unions are enumerated over the distinct allowed sets: all 2^k of them for
k <= MAX_EXHAUSTIVE_SETS distinct sets; past that, only the unions of at most
two sets, their complements and the empty and full unions (``exhaustive`` is
then False, and every deficit found is still a valid lower bound).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from tilefit.model.capture import Capture, Interval, Memory, Request
from tilefit.model.distinct import distinct

if TYPE_CHECKING:  # numpy.typing is for the type checker only
    from numpy.typing import NDArray

MAX_EXHAUSTIVE_SETS = 12
_CHUNK_CELLS = 1 << 22  # rows x unions per matrix product, to bound memory


@dataclass(frozen=True)
class UnionTable:
    """Bytes live per allowed set at every step, and the unions of allowed sets."""

    steps: list[int]  # row k covers steps [steps[k], steps[k + 1])
    live: NDArray[Any]  # rows x sets: bytes live whose allowed set is that set
    group: dict[tuple[str, bool], int]  # (class, interleaved) -> its allowed set's column
    cuts: list[int]  # every set boundary; atom k is [cuts[k], cuts[k + 1])
    unions: list[int]  # bitmasks of atoms
    capacity: list[int]  # bytes in each union
    inside: NDArray[Any]  # sets x unions: 1 where the set lies inside the union
    peaks: list[int]  # for each union, the most bytes live at one step inside it
    exhaustive: bool  # every union of allowed sets is in ``unions``

    def spans(self, union: int) -> tuple[Interval, ...]:
        """The address intervals of a union, adjacent atoms merged."""
        spans: list[Interval] = []
        for k in bits(self.unions[union]):
            if spans and spans[-1][1] == self.cuts[k]:
                spans[-1] = (spans[-1][0], self.cuts[k + 1])
            else:
                spans.append((self.cuts[k], self.cuts[k + 1]))
        return tuple(spans)

    def range_names(self, memory: Memory, union: int) -> tuple[str, ...]:
        """The names of the ranges a union draws on (``[start, end)`` for a nameless one)."""
        spans = self.spans(union)
        return tuple(
            r.name or f"[{r.start}, {r.end})"
            for r in memory.ranges
            if any(r.start < e and s < r.end for s, e in spans)
        )

    def inside_union(self, union: int) -> set[tuple[str, bool]]:
        """The (class, interleaved) kinds whose allowed set lies inside the union."""
        return {key for key, g in self.group.items() if self.inside[g, union]}


def union_table(
    capture: Capture, sets_of: Callable[[Request], tuple[Interval, ...]] | None = None
) -> UnionTable:
    """The table over the requests' allowed sets, or over ``sets_of(request)`` when given.

    With ``sets_of`` the columns are those sets and ``group`` is empty (it names
    (class, interleaved) kinds, which then do not decide a request's column).
    """
    memory = capture.memory
    requests = capture.requests
    sets: list[tuple[Interval, ...]] = []
    index: dict[tuple[Interval, ...], int] = {}
    group: dict[tuple[str, bool], int] = {}
    columns: list[int] = []
    for r in requests:
        key = (r.cls, r.interleaved)
        if sets_of is None and key in group:
            columns.append(group[key])
            continue
        # Requests group by allowed set; the allowed set depends on (class, interleaved).
        allowed = memory.allowed(*key) if sets_of is None else sets_of(r)
        column = index.setdefault(allowed, len(sets))
        if column == len(sets):
            sets.append(allowed)
        if sets_of is None:
            group[key] = column
        columns.append(column)
    steps, live = live_by(capture, columns, len(sets))

    # Atoms: the pieces cut by every set boundary; a set or a union is a bitmask of atoms.
    cuts = sorted({p for spans in sets for span in spans for p in span})
    atom = {p: k for k, p in enumerate(cuts)}
    masks = [sum(1 << k for s, e in spans for k in range(atom[s], atom[e])) for spans in sets]
    unions, exhaustive = _unions(masks)
    capacity = [sum(cuts[k + 1] - cuts[k] for k in bits(u)) for u in unions]
    inside = np.array(
        [[1 if m & ~u == 0 else 0 for u in unions] for m in masks], dtype=live.dtype
    ).reshape(len(masks), len(unions))
    peaks = [int(p) for p in _column_maxima(_local_peaks(live), inside)]
    return UnionTable(steps, live, group, cuts, unions, capacity, inside, peaks, exhaustive)


def live_by(capture: Capture, columns: Sequence[int], width: int) -> tuple[list[int], NDArray[Any]]:
    """Steps, and bytes live in each column during [steps[k], steps[k + 1]) as row k.

    The steps are 0, the horizon and every start and end, so the live bytes
    are constant between two of them; a lifetime that wraps around a cyclic
    capture's circle counts at its steps either side of the cut.
    """
    requests = capture.requests
    # Steps are within [0, horizon]: int64 holds them (sizes may not: ``_dtype``).
    starts = np.fromiter((r.start for r in requests), np.int64, len(requests))
    ends = np.fromiter((r.end for r in requests), np.int64, len(requests))
    points, first, last = step_ranks(starts, ends, capture.horizon)
    dtype = _dtype(requests)
    delta: NDArray[Any] = np.zeros((len(points), width), dtype=dtype)
    if requests:
        cols = np.array(columns, dtype=np.intp)
        sizes: NDArray[Any] = np.array([r.size for r in requests], dtype=dtype)
        np.add.at(delta, (first, cols), sizes)
        np.add.at(delta, (last, cols), -sizes)
        # A lifetime wrapping around a cyclic capture's circle (start > end) is live from
        # step 0 to its end and from its start on: the two entries above leave it out of
        # [end, start), so one more from step 0 puts it in the rest.
        wraps = ends <= starts
        np.add.at(delta[0], cols[wraps], sizes[wraps])
    return points.tolist(), np.cumsum(delta, axis=0)[:-1]


def step_ranks(
    starts: NDArray[np.int64], ends: NDArray[np.int64], horizon: int
) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """The distinct steps among 0, the horizon, the starts and the ends, ascending, and each
    start's and end's position among them."""
    if len(starts) and horizon <= 4 * len(starts) and _within(starts, horizon, ends):
        # Steps within a short horizon: marked in a table rather than sorted.
        marked = np.zeros(horizon + 1, dtype=bool)
        marked[[0, horizon]] = True
        marked[starts] = True
        marked[ends] = True
        rank = np.cumsum(marked) - 1
        return np.flatnonzero(marked), rank[starts], rank[ends]
    points = distinct(np.concatenate((np.array([0, horizon], dtype=np.int64), starts, ends)))
    return points, np.searchsorted(points, starts), np.searchsorted(points, ends)


def _within(starts: NDArray[Any], horizon: int, ends: NDArray[Any]) -> bool:
    return bool(starts.min() >= 0 and ends.min() >= 0 and max(starts.max(), ends.max()) <= horizon)


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


def chunk_rows(unions: int) -> int:
    """Rows per matrix product against ``unions`` columns, to bound memory."""
    return max(1, _CHUNK_CELLS // max(1, unions))


def bits(mask: int) -> list[int]:
    return [k for k in range(mask.bit_length()) if mask >> k & 1]


def _dtype(requests: Sequence[Request]) -> type:
    # Floats make the matrix products fast and stay exact below 2**53 bytes in all.
    return np.float64 if sum(r.size for r in requests) < 2**53 else object


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
