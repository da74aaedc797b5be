"""First-fit on plain captures, many units at a time.

A capture is **plain** when every request is its own unit (no sequences), no
conflict edge exists, and every request has the same allowed set, one
interval. First-fit there needs only lifetimes, sizes and alignments, and
units whose lifetimes are pairwise disjoint do not see each other: placing
the next run of such units (in strategy order) together gives exactly the
placement of placing them one by one. Each run is placed with a handful of
numpy operations instead of a Python loop per unit, which pays off from some
tens of thousands of requests (see ``benchmarks/engine_speed.py``).

Time is cut into buckets; each request is listed under every bucket its
lifetime touches (a static table, since lifetimes are known up front). A run
ends before the first unit that shares a bucket with an earlier unit of the
run, which is stricter than needed but cheap to test.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from tilefit.capture import Capture

Ints = NDArray[np.int64]

RUN_WINDOW = 64  # units examined at once when cutting the next run
MAX_ADDRESS_BITS = 52  # run index and address share one int64 sort key


@dataclass(frozen=True)
class PlainArrays:
    """A plain capture's requests as arrays, in capture order, and its time table."""

    starts: Ints
    ends: Ints
    sizes: Ints
    alignments: Ints
    low: int  # the allowed interval [low, high) shared by every request
    high: int
    first_bucket: Ints  # per request, the buckets its lifetime touches
    last_bucket: Ints
    table_start: Ints  # bucket b lists table[table_start[b] : table_start[b + 1]]
    table: Ints

    @classmethod
    def of(cls, capture: Capture, width: int) -> PlainArrays | None:
        """The arrays, or None when the capture is not plain."""
        if capture.sequences or capture.conflicts or not capture.requests:
            return None
        memory = capture.memory
        kinds = {(r.cls, r.interleaved) for r in capture.requests}
        allowed = {memory.allowed(cls, interleaved) for cls, interleaved in kinds}
        if len(allowed) != 1:
            return None
        (intervals,) = allowed
        if len(intervals) != 1 or memory.size.bit_length() > MAX_ADDRESS_BITS:
            return None
        ((low, high),) = intervals
        starts = np.fromiter((r.start for r in capture.requests), np.int64)
        ends = np.fromiter((r.end for r in capture.requests), np.int64)
        first, last = starts // width, (ends - 1) // width
        touched = last - first + 1
        owner = np.repeat(np.arange(len(starts)), touched)
        bucket = np.repeat(first, touched) + _ramps(touched)
        by_bucket = np.argsort(bucket, kind="stable")
        table_start = np.zeros(int(last.max()) + 2, np.int64)
        np.cumsum(np.bincount(bucket, minlength=len(table_start) - 1), out=table_start[1:])
        return cls(
            starts=starts,
            ends=ends,
            sizes=np.fromiter((r.size for r in capture.requests), np.int64),
            alignments=np.fromiter((r.alignment for r in capture.requests), np.int64),
            low=low,
            high=high,
            first_bucket=first,
            last_bucket=last,
            table_start=table_start,
            table=owner[by_bucket],
        )


def first_fit(plain: PlainArrays, order: Ints) -> tuple[Ints, int]:
    """Place requests in ``order`` (capture indices) at their lowest valid offsets.

    Returns the offsets by capture index (-1 where not placed) and the position
    in ``order`` of the first request with no valid offset, or -1 when all fit.
    """
    offsets = np.full(len(plain.starts), -1, np.int64)
    placed = np.zeros(len(plain.starts), bool)
    shift = plain.high.bit_length() + 1
    position = 0
    while position < len(order):
        run = order[position : position + _run_length(plain, order[position:])]
        found = _place_run(plain, run, offsets, placed, shift)
        fails = found + plain.sizes[run] > plain.high
        if fails.any():
            ok = int(fails.argmax())
            offsets[run[:ok]] = found[:ok]
            return offsets, position + ok
        offsets[run] = found
        placed[run] = True
        position += len(run)
    return offsets, -1


def _run_length(plain: PlainArrays, rest: Ints) -> int:
    """How many of the next units share no time bucket with an earlier one of them."""
    window = rest[:RUN_WINDOW]
    first, last = plain.first_bucket[window], plain.last_bucket[window]
    meets = (first[:, None] <= last[None, :]) & (first[None, :] <= last[:, None])
    clash = np.tril(meets, -1).any(axis=1)
    return int(clash.argmax()) if clash.any() else len(window)


def _place_run(
    plain: PlainArrays, run: Ints, offsets: Ints, placed: NDArray[np.bool_], shift: int
) -> Ints:
    """The lowest aligned offset >= low of each unit of a run, clear of what is placed
    during its lifetime (it may lie past ``high``: the caller checks)."""
    # Every placed request listed under a bucket the unit touches, then those alive with it.
    begin = plain.table_start[plain.first_bucket[run]]
    count = plain.table_start[plain.last_bucket[run] + 1] - begin
    unit = np.repeat(np.arange(len(run)), count)
    other = plain.table[np.repeat(begin, count) + _ramps(count)]
    alive = (
        placed[other]
        & (plain.starts[other] < plain.ends[run][unit])
        & (plain.ends[other] > plain.starts[run][unit])
    )
    unit, other = unit[alive], other[alive]
    # By unit, then address; the highest end so far (within the unit) is the
    # lowest address a next gap can start at.
    by_address = np.argsort((unit << shift) + offsets[other])
    unit, other = unit[by_address], other[by_address]
    lo = offsets[other]
    reach = np.maximum.accumulate(lo + plain.sizes[other] + (unit << shift)) - (unit << shift)
    first = np.ones(len(unit), bool)
    first[1:] = unit[1:] != unit[:-1]
    before = np.empty_like(reach)
    before[1:] = reach[:-1]
    before[first] = plain.low
    np.maximum(before, plain.low, out=before)
    alignment = plain.alignments[run][unit]
    candidate = before + (-before) % alignment
    # A unit takes the first gap that holds it, else the address past everything.
    found = np.full(len(run), plain.low, np.int64)
    last = np.ones(len(unit), bool)
    last[:-1] = first[1:]
    found[unit[last]] = np.maximum(reach[last], plain.low)
    fitting = candidate + plain.sizes[run][unit] <= lo
    with_gap, at = np.unique(unit[fitting], return_index=True)
    found[with_gap] = candidate[fitting][at]
    without_gap = np.ones(len(run), bool)
    without_gap[with_gap] = False
    align = plain.alignments[run]
    found[without_gap] += (-found[without_gap]) % align[without_gap]
    return found


def _ramps(lengths: Ints) -> Ints:
    """0, 1, ..., n-1 for each n in lengths, concatenated."""
    ends = np.cumsum(lengths)
    return np.arange(int(ends[-1]) if len(ends) else 0) - np.repeat(ends - lengths, lengths)
