"""The aligned lower bound: the bytes that alignment must waste between live requests.

The live storage lower bound counts bytes. Requests whose offsets must be
multiples of their alignment also leave gaps between them, and some of those
gaps are forced whatever the placement. This module counts the forced ones.

**One step, one stretch of memory.** Take any valid placement and one step t.
List the requests live at t in address order, ``x_1 < x_2 < ... < x_n``, with
sizes ``s_i`` and alignments ``a_i``. They are disjoint, so
``x_{i+1} >= x_i + s_i``. Both offsets are multiples of
``g = gcd(a_i, a_{i+1})``, so ``x_{i+1} - x_i`` is a multiple of g that is at
least ``s_i``: it is at least ``s_i`` rounded up to g. So the gap
``[x_i + s_i, x_{i+1})`` after request i holds at least

    pad(i, j) = (-s_i) mod gcd(a_i, a_j)       (j: the request directly above i)

bytes. Which request lies directly above i depends on the placement. It is
live at t, so its lifetime meets i's. Each request therefore counts the least
pad over every other request whose lifetime meets its own:
``w_i = min over those j of pad(i, j)``, or 0 for a request that never lives
beside another. (If ``a_j`` is a multiple of ``a_i``, then ``pad(i, j)`` is
``s_i`` rounded up to ``a_i``, less ``s_i``. A neighbour of alignment 1 makes
it 0.) The top-most request has nothing above it, so it pays no padding. The
requests and the gaps after all of them except the top-most one are disjoint
and lie in ``[x_1, top)``. So for any placement

    top - x_1 >= span(t) = sum over live i of (s_i + w_i) - max over live i of w_i.

With one alignment A for every request this is the sum of the sizes rounded
up to A, less the rounding of the one on top:
``sum(ceil(s_i / A) * A) - max_i(ceil(s_i / A) * A - s_i)``. Every
``w_i < a_i``, and ``span(t)`` is never below the bytes live at t. Since
``x_1`` is at least the lowest address of any range, **no placement has a
top below** ``low + max over t of span(t)``.

**Memory in stretches.** The available storage may lie in several
*stretches*: maximal runs of contiguous addresses, where ranges that touch
join and a reserved gap splits. A request lies wholly inside one stretch: its
allowed set is part of the ranges, and it may cross the border of two ranges
only where they touch. In a stretch, take the requests in address order. The
next live request above any one of them except the last starts no higher than
that last one, so the gap after it lies in the same stretch. A gap after the
stretch's top-most request may lie in a reserved gap instead, and is not
counted. With the live requests in c stretches, the storage they hold (their
bytes, and the gaps between them inside stretches) is therefore at least

    need_c(t) = sum over live i of (s_i + w_i) - (the c largest w_i)
              >= sum over live i of (s_i + w_i) - c * max w_i.

The second form is the one computed here (it gives a smaller need, so it is
still a valid bound), and never below the bytes live at t, which need their
storage too. With m stretches in all, ``need_m(t) > available``
proves that no placement exists: this is the **aligned deficit**. A top
inside stretch k, with the stretches in address order, leaves the storage of
stretches 1 to k-1 and ``[start_k, top)``. So
``top >= start_k + need_k(t) - (storage of stretches 1 to k-1)``. Only a
stretch where that top does not pass the stretch's end can hold the top.

**What it does not count** (each would make the bound larger, and leaving it
out keeps the bound valid): padding below the lowest request when a range
starts off its alignment; which request can sit directly above which one
when several are co-live (a request j can follow only one other, but w lets
every request choose its cheapest neighbour); the classes' allowed sets (the
support-aware bound stays in bytes); bank separation. With every alignment 1,
or every size a multiple of every co-live alignment (TFLM rounds its sizes to
16), the aligned bound equals the live bound.

Cost: one sorted search per distinct alignment to find the co-live
alignments, one sweep over the steps for the sums, and a sparse-table pass
for the largest ``w_i`` live at each step. That pass takes O(steps x log
steps).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tilefit.bounds.columns import step_ranks
from tilefit.model.arcs import cut_open
from tilefit.model.capture import Capture, Interval

if TYPE_CHECKING:  # numpy.typing is for the type checker only
    from numpy.typing import NDArray

__all__ = ["AlignedBound", "aligned_bound", "paddings", "stretches"]

_INT_LIMIT = 2**62  # sums at or past this leave int64 for Python integers


@dataclass(frozen=True, slots=True)
class AlignedBound:
    """The aligned lower bound of a capture (see the module's docstring)."""

    span: int  # the most, over the steps, that the live requests span: bytes + forced padding
    step: int  # the earliest step where they span that much
    live: int  # bytes live at that step (span - live is its padding)
    stretches: int  # maximal stretches of contiguous available storage
    need: int  # the most storage the live requests need at one step, in that many stretches
    top: int  # no placement has a lower memory top (by this bound; at least the lowest address)
    available: int

    @property
    def padding(self) -> int:
        """Bytes of forced alignment padding at ``step``."""
        return self.span - self.live

    @property
    def deficit(self) -> int:
        """Storage the live requests need, padding included, beyond what is available."""
        return max(0, self.need - self.available)


def stretches(capture: Capture) -> list[Interval]:
    """The maximal runs of contiguous available addresses, in address order."""
    out: list[Interval] = []
    for r in sorted(capture.memory.ranges, key=lambda r: r.start):
        if out and out[-1][1] == r.start:
            out[-1] = (out[-1][0], r.end)
        else:
            out.append((r.start, r.end))
    return out


def paddings(capture: Capture) -> list[int]:
    """``w_i`` of every request, in capture order: the least gap that alignment forces
    above it while anything lives beside it (0 when nothing ever does)."""
    return [int(w) for w in _paddings(capture)]


def aligned_bound(capture: Capture) -> AlignedBound:
    """The span, the need in stretches and the lowest top that alignment forces (step by
    step: a cyclic capture's circle cut open at step 0, ``tilefit.model.arcs``)."""
    capture = cut_open(capture)
    requests = capture.requests
    parts = stretches(capture)
    low = parts[0][0] if parts else 0
    available = capture.available
    if not requests:
        return AlignedBound(0, 0, 0, len(parts), 0, low, available)
    w = _paddings(capture)
    sizes = [r.size for r in requests]
    big = sum(sizes) + int(w.sum()) >= _INT_LIMIT
    where, lo, hi = step_ranks(
        np.array([r.start for r in requests], dtype=np.int64),
        np.array([r.end for r in requests], dtype=np.int64),
        capture.horizon,
    )
    steps = where.tolist()
    rows = len(steps) - 1
    dtype: Any = object if big else np.int64
    size_array = np.array(sizes, dtype=dtype)
    live = _sweep(lo, hi, size_array, rows)
    total = live + _sweep(lo, hi, w.astype(dtype), rows)
    largest = _cover_max(lo, hi, w, rows).astype(dtype)
    spans = total - largest
    row = int(np.argmax(spans))  # the first maximum: the earliest step
    span = int(spans[row])
    need = _need(live, total, largest, max(1, len(parts)))
    top = max(low + span, _prefix_top(parts, live, total, largest))
    return AlignedBound(span, steps[row], int(live[row]), len(parts), need, top, available)


def _paddings(capture: Capture) -> NDArray[np.int64]:
    """``w_i`` for every request (see the module's docstring), as an array."""
    requests = capture.requests
    n = len(requests)
    sizes = np.array([r.size for r in requests], dtype=np.int64)
    aligns = np.array([r.alignment for r in requests], dtype=np.int64)
    distinct = sorted(set(aligns.tolist()))
    if distinct == [1]:
        return np.zeros(n, dtype=np.int64)
    starts = np.array([r.start for r in requests], dtype=np.int64)
    ends = np.array([r.end for r in requests], dtype=np.int64)
    best = np.full(n, -1, dtype=np.int64)  # -1: no co-live request seen yet
    for b in distinct:
        mine = aligns == b
        b_starts = np.sort(starts[mine])
        b_ends = np.sort(ends[mine])
        # Requests of alignment b whose lifetime meets [start, end): those starting
        # before the end, less those ending at or before the start (a subset of them).
        meets = np.searchsorted(b_starts, ends, side="left") - np.searchsorted(
            b_ends, starts, side="right"
        )
        meets -= mine  # a request always meets itself
        g = np.gcd(aligns, b)
        pad = (-sizes) % g
        take = (meets > 0) & ((best < 0) | (pad < best))
        best[take] = pad[take]
    best[best < 0] = 0
    return best


def _sweep(lo: NDArray[Any], hi: NDArray[Any], values: NDArray[Any], rows: int) -> NDArray[Any]:
    """The sum of ``values`` over the spans [lo, hi) of rows covering each row."""
    delta = np.zeros(rows + 1, dtype=values.dtype)
    np.add.at(delta, lo, values)
    np.add.at(delta, hi, -values)
    return np.cumsum(delta[:-1])


def _cover_max(
    lo: NDArray[Any], hi: NDArray[Any], values: NDArray[np.int64], rows: int
) -> NDArray[np.int64]:
    """The largest of ``values`` over the spans [lo, hi) of rows covering each row (0 where
    none does), with a sparse table: a span of length n sets the two blocks of length
    2^floor(log2 n) that cover it, then each level hands its blocks down to the next."""
    keep = values > 0
    lo, hi, values = lo[keep], hi[keep], values[keep]
    if len(values) == 0:
        return np.zeros(rows, dtype=np.int64)
    length = hi - lo
    level = np.array([int(n).bit_length() - 1 for n in length.tolist()], dtype=np.int64)
    current = np.zeros(rows, dtype=np.int64)
    for k in range(int(level.max()), -1, -1):
        at = level == k
        if at.any():
            np.maximum.at(current, lo[at], values[at])
            np.maximum.at(current, hi[at] - (1 << k), values[at])
        if k > 0:
            half = 1 << (k - 1)
            below = current.copy()  # a block of 2^k is two blocks of 2^(k-1)
            if half < rows:
                below[half:] = np.maximum(below[half:], current[:-half])
            current = below
    return current


def _need(live: NDArray[Any], total: NDArray[Any], largest: NDArray[Any], count: int) -> int:
    """The most storage the live requests need at one step when they lie in ``count``
    stretches: their padded sizes less ``count`` paddings, and never less than their bytes."""
    return int(np.max(np.maximum(live, total - count * largest)))


def _prefix_top(
    parts: list[Interval], live: NDArray[Any], total: NDArray[Any], largest: NDArray[Any]
) -> int:
    """The lowest top the stretches allow: a top inside stretch k leaves the storage of the
    stretches below it and of [start_k, top) for the requests in k stretches at most."""
    below = 0
    for k, (start, end) in enumerate(parts, 1):
        need = _need(live, total, largest, k) - below
        if need <= end - start:
            return start + max(0, need)
        below += end - start
    return parts[-1][1] if parts else 0
