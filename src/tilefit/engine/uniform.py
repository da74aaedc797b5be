"""First-fit on uniform captures, many units at a time.

A capture is **uniform** when every request is its own unit (no sequences), no
conflict edge exists, and every request has the same allowed set, one
interval. First-fit there needs only lifetimes, sizes and alignments, and
units whose lifetimes are pairwise disjoint do not see each other: placing
the next run of such units (in strategy order) together gives exactly the
placement of placing them one by one. Each run is placed with a handful of
numpy operations instead of a Python loop per unit, which pays off from some
tens of thousands of requests (see ``benchmarks/engine_speed.py``).

Time is cut into buckets. A run ends before the first unit that shares a
bucket with an earlier unit of the run, which is stricter than needed but
cheap to test. Each bucket lists the requests whose lifetime touches it in
placement order, so the placed ones are a prefix whose length grows by one
whenever a unit touching the bucket is placed.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from tilefit.model.capture import Capture

Ints = NDArray[np.int64]

MAX_ADDRESS_BITS = 52  # run index and address share one int64 sort key


@dataclass(frozen=True)
class UniformArrays:
    """A uniform capture's requests as arrays, in capture order, and its time table."""

    starts: Ints
    ends: Ints
    sizes: Ints
    alignments: Ints
    low: int  # the allowed interval [low, high) shared by every request
    high: int
    first_bucket: Ints  # per request, the buckets its lifetime touches
    last_bucket: Ints
    table_start: Ints  # bucket b's entries are [table_start[b], table_start[b + 1])
    entry_bucket: Ints  # per entry, in bucket order: the bucket and the request
    entry_request: Ints

    @classmethod
    def of(cls, capture: Capture, width: int) -> UniformArrays | None:
        """The arrays, or None when the capture is not uniform."""
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
        table_start = np.zeros(int(last.max()) + 2, np.int64)
        bucket = np.repeat(first, touched) + _ramps(touched)
        table_start[1:] = np.cumsum(np.bincount(bucket, minlength=len(table_start) - 1))
        by_bucket = np.argsort(bucket, kind="stable")
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
            entry_bucket=bucket[by_bucket],
            entry_request=np.repeat(np.arange(len(starts)), touched)[by_bucket],
        )


Stop = Callable[[], bool]
"""Asked now and then by a long pass: True ends it (a deadline's ``passed``)."""

Runs = list[tuple[int, int]]
"""An order cut into runs of units that share no time bucket: (begin, end) positions."""

BulkFit = Callable[["UniformArrays", "Ints", Stop | None, Runs | None], tuple["Ints", int]]
"""A fit's choice for a whole uniform capture at once (``first_fit``)."""

CUT = -2
"""``first_fit``'s position when ``stop`` ended it before every request was tried."""


def first_fit(
    uniform: UniformArrays,
    order: Ints,
    stop: Callable[[], bool] | None = None,
    runs: Runs | None = None,
) -> tuple[Ints, int]:
    """Place requests in ``order`` (capture indices) at their lowest valid offsets.

    Returns the offsets by capture index (-1 where not placed) and the position
    in ``order`` of the first request with no valid offset, or -1 when all fit, or
    ``CUT`` when ``stop`` (asked before each run: a run's numpy work dwarfs a clock
    reading) ended it first. ``runs``: ``bulk_runs(uniform, order)``, when the caller
    has them already.
    """
    rank = np.empty(len(uniform.starts), np.int64)
    rank[order] = np.arange(len(order))
    # Within each bucket, requests in placement order.
    key = uniform.entry_bucket * len(order) + rank[uniform.entry_request]
    table = uniform.entry_request[np.argsort(key)]
    filled = np.zeros(len(uniform.table_start) - 1, np.int64)  # placed entries per bucket
    offsets = np.full(len(uniform.starts), -1, np.int64)
    shift = uniform.high.bit_length() + 1
    for begin, end in bulk_runs(uniform, order) if runs is None else runs:
        if stop is not None and stop():
            return offsets, CUT
        run = order[begin:end]
        buckets, touching = _buckets(uniform, run)
        found = _place_run(uniform, table, filled, run, buckets, touching, offsets, shift)
        fails = found + uniform.sizes[run] > uniform.high
        if fails.any():
            ok = int(fails.argmax())
            offsets[run[:ok]] = found[:ok]
            return offsets, begin + ok
        offsets[run] = found
        filled[buckets] += 1  # no bucket twice: the run's units share none
    return offsets, -1


def bulk_runs(uniform: UniformArrays, order: Ints) -> Runs:
    """``order`` cut into runs of units sharing no time bucket, as (begin, end) positions:
    each run is placed at once. Few units a run, the bulk placement loses to the one-by-one
    loop (``tilefit.engine.attempt``, which asks this first)."""
    return list(_runs(uniform, order))


def _runs(uniform: UniformArrays, order: Ints) -> Iterator[tuple[int, int]]:
    """Cut ``order`` into runs of units sharing no time bucket, as (begin, end) positions."""
    # Each bucket holds the number of the last run that touched it.
    stamps = array("q", [-1]) * (len(uniform.table_start) - 1)
    firsts = uniform.first_bucket[order].tolist()
    lasts = uniform.last_bucket[order].tolist()
    begin = 0
    run = 0
    for position, (first, last) in enumerate(zip(firsts, lasts, strict=True)):
        if run in stamps[first : last + 1]:
            yield begin, position
            begin = position
            run += 1
        stamps[first : last + 1] = array("q", [run]) * (last + 1 - first)
    if begin < len(order):
        yield begin, len(order)


def _buckets(uniform: UniformArrays, run: Ints) -> tuple[Ints, Ints]:
    """Every bucket a unit of the run touches, and which unit (position in the run)."""
    first = uniform.first_bucket[run]
    touched = uniform.last_bucket[run] - first + 1
    return np.repeat(first, touched) + _ramps(touched), np.repeat(np.arange(len(run)), touched)


def _place_run(
    uniform: UniformArrays,
    table: Ints,
    filled: Ints,
    run: Ints,
    buckets: Ints,
    touching: Ints,
    offsets: Ints,
    shift: int,
) -> Ints:
    """The lowest aligned offset >= low of each unit of a run, clear of what is placed
    during its lifetime (it may lie past ``high``: the caller checks)."""
    # The placed requests listed under the unit's buckets, then those alive with it.
    count = filled[buckets]
    unit = np.repeat(touching, count)
    other = table[np.repeat(uniform.table_start[buckets], count) + _ramps(count)]
    alive = (uniform.starts[other] < uniform.ends[run][unit]) & (
        uniform.ends[other] > uniform.starts[run][unit]
    )
    unit, other = unit[alive], other[alive]
    # By unit, then address; the highest end so far (within the unit) is the
    # lowest address a next gap can start at.
    by_address = np.argsort((unit << shift) + offsets[other])
    unit, other = unit[by_address], other[by_address]
    lo = offsets[other]
    reach = np.maximum.accumulate(lo + uniform.sizes[other] + (unit << shift)) - (unit << shift)
    first = np.ones(len(unit), bool)
    first[1:] = unit[1:] != unit[:-1]
    before = np.empty_like(reach)
    before[1:] = reach[:-1]
    before[first] = uniform.low
    np.maximum(before, uniform.low, out=before)
    alignment = uniform.alignments[run][unit]
    candidate = before + (-before) % alignment
    # A unit takes the first gap that holds it, else the address past everything.
    found = np.full(len(run), uniform.low, np.int64)
    last = np.ones(len(unit), bool)
    last[:-1] = first[1:]
    found[unit[last]] = np.maximum(reach[last], uniform.low)
    fitting = candidate + uniform.sizes[run][unit] <= lo
    with_gap, at = np.unique(unit[fitting], return_index=True)
    found[with_gap] = candidate[fitting][at]
    without_gap = np.ones(len(run), bool)
    without_gap[with_gap] = False
    align = uniform.alignments[run]
    found[without_gap] += (-found[without_gap]) % align[without_gap]
    return found


def _ramps(lengths: Ints) -> Ints:
    """0, 1, ..., n-1 for each n in lengths, concatenated."""
    ends = np.cumsum(lengths)
    return np.arange(int(ends[-1]) if len(ends) else 0) - np.repeat(ends - lengths, lengths)
