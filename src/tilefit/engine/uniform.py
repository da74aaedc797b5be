"""Uniform captures placed by a compiled loop (``tilefit.engine.uniform_loop``).

A capture is **uniform** when every request is its own unit (no sequences), no
conflict edge exists, and every request has the same allowed set, one
interval: a fit then needs only lifetimes, sizes and alignments, which go to
the compiled loop as arrays, with the same result as the one-by-one engine
(``tests/engine/test_uniform.py``) and 20-200 times quicker (``benchmarks/engine_speed.py``).

Time is cut into buckets. Each bucket lists the placed requests whose lifetime
touches it, in placement order; a request sits under its buckets when it
touches at most ``LONG_BUCKETS`` of them, and looks at the buckets its lifetime
touches. A longer request (alive for much of the horizon, as many of a real
program's are) sits in one list of long requests kept by address, which every
request reads through: many of them are alive at once, and the list needs no
sorting. When that list would grow past ``LONG_LIST_MOST``, a level of buckets
``LONG_BUCKETS`` times as wide takes the requests that touch at most ``LONG_BUCKETS``
of its own, then another above it, as long as the list stays too long (a million
made-up buffers put 42,000 requests of a few hundred steps in the list: a pass took a
minute; now 10 s). A request alive
whenever any other is (a weight) is in neither: the others read the union of
those requests' addresses.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tilefit.engine.jit import jit_disabled as jit_disabled  # its old home, still asked here
from tilefit.model.capture import Capture

if TYPE_CHECKING:  # numpy.typing is for the type checker only
    from numpy.typing import NDArray

    Ints = NDArray[np.int64]
    Bools = NDArray[np.bool_]

MAX_ADDRESS_BITS = 62  # offsets plus sizes stay within int64

LONG_BUCKETS = 16
"""Buckets a request may touch at its level; also the ratio of one level's width to the
one's below."""

LONG_LIST_MOST = 8192
"""Long requests past which a second level of buckets takes those it can: every request
reads the whole list (the real traces' longest, S_1's, holds 5,060)."""

UNION_WIDTH = 4096
"""Intervals the union of every placed request's addresses may hold before it is given up
(a request alive throughout then gathers what is placed instead)."""

CHUNK = 2048
"""Requests placed per call of the compiled loop, at most: ``stop`` is asked between
calls."""

CALL_SECONDS = 0.05
"""How long one call should run: where requests are slow to place (200,000 alive at once:
milliseconds each, 2,048 of them 4-10 s), the next call takes fewer of them, so that a
deadline is heard within about this (a million requests of a training step ran 20 s
past a 120 s limit). The placement does not depend on where the calls split it."""


@dataclass(frozen=True)
class UniformArrays:
    """A uniform capture's requests as arrays, in capture order, and its time buckets."""

    starts: Ints
    ends: Ints
    sizes: Ints
    alignments: Ints
    low: int  # the allowed interval [low, high) shared by every request
    high: int
    first_bucket: Ints  # per request, the buckets it sits under (numbered over all levels)
    last_bucket: Ints
    table_start: Ints  # bucket b's slots are [table_start[b], table_start[b + 1])
    widths: Ints  # per level, the steps of its buckets
    bases: Ints  # per level, the number of its first bucket
    long: NDArray[np.bool_]  # per request: kept in the list of long requests
    whole: NDArray[np.bool_]  # per request: alive whenever any other request is

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
        whole = (starts <= starts.min()) & (ends >= ends.max())
        widths, bases, first, last, long = _levels(starts, ends, whole, width)
        touched = np.where(whole | long, 0, last - first + 1)
        table_start = np.zeros(int(bases[-1]) + 1, np.int64)
        bucket = np.repeat(first, touched) + _ramps(touched)
        table_start[1:] = np.cumsum(np.bincount(bucket, minlength=len(table_start) - 1))
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
            widths=widths,
            bases=bases,
            long=long,
            whole=whole,
        )


Stop = Callable[[], bool]
"""Asked now and then by a long pass: True ends it (a deadline's ``passed``)."""

BulkFit = Callable[["UniformArrays", "Ints", "Stop | None"], tuple["Ints", int]]
"""A fit's choice for a whole uniform capture at once (``lowest_offsets``)."""

CUT = -2
"""The position a placement returns when ``stop`` ended it before every request was tried."""


def lowest_offsets(
    uniform: UniformArrays, order: Ints, stop: Stop | None = None
) -> tuple[Ints, int]:
    """First-fit: each request in ``order`` (capture indices) at its lowest valid offset."""
    return _fit(uniform, order, False, stop)


def smallest_holes(
    uniform: UniformArrays, order: Ints, stop: Stop | None = None
) -> tuple[Ints, int]:
    """Best-fit: each request in ``order`` in the smallest hole that holds it."""
    return _fit(uniform, order, True, stop)


def _fit(uniform: UniformArrays, order: Ints, best: bool, stop: Stop | None) -> tuple[Ints, int]:
    """By the sweep (``tilefit.engine.sweep_loop``) when the order's starts ascend, else
    by the loop that gathers each request's live neighbours."""
    if len(order) and bool(np.all(np.diff(uniform.starts[order]) >= 0)):
        return _sweep(uniform, order, best, stop)
    return _place(uniform, order, best, stop)


Span = Callable[[int, int], int]
"""A compiled loop's call on ``order[begin:end]``: the position of the first request with
no valid offset, or -1."""


def _place(uniform: UniformArrays, order: Ints, best: bool, stop: Stop | None) -> tuple[Ints, int]:
    """Offsets by capture index (-1 where not placed) and the position in ``order`` of the
    first request with no valid offset, -1 when all fit, or ``CUT`` when ``stop`` (asked
    between calls of at most ``CHUNK`` requests, fewer where they are slow) ended it
    first."""
    from tilefit.engine.uniform_loop import place_span

    count = len(uniform.starts)
    table = np.empty(int(uniform.table_start[-1]), np.int64)
    filled = np.zeros(len(uniform.table_start) - 1, np.int64)
    longs = np.zeros((int(uniform.long.sum()), 4), np.int64)
    unions = np.zeros((4, max(UNION_WIDTH, int(uniform.whole.sum()) + 1)), np.int64)
    counts = np.zeros(3, np.int64)
    offsets = np.full(count, -1, np.int64)
    seen = np.full(count, -1, np.int64)
    bounds = np.array([uniform.low, uniform.high], np.int64)

    def span(begin: int, end: int) -> int:
        return int(
            place_span(
                uniform.starts,
                uniform.ends,
                uniform.sizes,
                uniform.alignments,
                bounds,
                order,
                best,
                uniform.first_bucket,
                uniform.last_bucket,
                uniform.table_start,
                table,
                filled,
                uniform.widths,
                uniform.bases,
                uniform.long,
                longs,
                uniform.whole,
                unions,
                counts,
                offsets,
                seen,
                begin,
                end,
            )
        )

    return offsets, _in_calls(span, len(order), stop)


def _sweep(
    uniform: UniformArrays,
    order: Ints,
    best: bool,
    stop: Stop | None,
    width: int | None = None,
    rows: int | None = None,
    repacks: list[int] | None = None,
) -> tuple[Ints, int]:
    """``_place`` for an order whose starts ascend, by the sweep: the holes
    start as the one allowed interval, in the first chunk. ``width`` holes a chunk,
    ``rows`` chunks (by default ``sweep_loop``'s: the tests narrow both to split and
    repack the chunks often, and count the repackings in ``repacks``; ``rows`` must hold
    every hole in chunks half full)."""
    from tilefit.engine import sweep_loop

    width = width or sweep_loop.WIDTH
    rows = rows or sweep_loop.chunk_rows(len(order), width)
    sweep_span = sweep_loop.sweep_span
    lows, highs = np.zeros((rows, width), np.int64), np.zeros((rows, width), np.int64)
    held, longest = np.zeros(rows, np.int64), np.zeros(rows, np.int64)
    chain = np.zeros(rows, np.int64)
    spare = np.zeros(rows, np.int64)  # a stack of the chunks not in use: all but 0
    spare[: rows - 1] = np.arange(rows - 1, 0, -1)
    lows[0, 0], highs[0, 0], held[0], longest[0] = (
        uniform.low,
        uniform.high,
        1,
        uniform.high - uniform.low,
    )
    state = np.array([1, 0, rows - 1, 0], np.int64)  # chunks, released, spare, repacks
    holes = sweep_loop.Holes(lows, highs, held, longest, chain, spare, state)
    by_end = order[np.argsort(uniform.ends[order], kind="stable")]
    offsets = np.full(len(uniform.starts), -1, np.int64)

    def span(begin: int, end: int) -> int:
        return int(
            sweep_span(
                uniform.starts,
                uniform.ends,
                uniform.sizes,
                uniform.alignments,
                order,
                best,
                by_end,
                holes,
                offsets,
                begin,
                end,
            )
        )

    failed_at = _in_calls(span, len(order), stop)
    if repacks is not None:
        repacks.append(int(state[sweep_loop.REPACKS]))
    return offsets, failed_at


def _in_calls(span: Span, length: int, stop: Stop | None) -> int:
    """``span`` over the positions [0, length) in calls of at most ``CHUNK``, fewer where
    they are slow, ``stop`` asked before each: the first position with no valid offset,
    -1 when all fit, or ``CUT``."""
    begin, size = 0, CHUNK
    while begin < length:
        if stop is not None and stop():
            return CUT
        end = min(begin + size, length)
        called = time.perf_counter()
        failed_at = span(begin, end)
        if failed_at >= 0:
            return failed_at
        size = _next_span(size, end - begin, time.perf_counter() - called)
        begin = end
    return -1


def _next_span(span: int, placed: int, seconds: float) -> int:
    """The requests the next call takes: as many as ``CALL_SECONDS`` held at this call's
    pace, between 1 and ``CHUNK``, at most twice as many as now."""
    if seconds <= 0:
        return min(CHUNK, 2 * span)
    return max(1, min(CHUNK, 2 * span, int(placed * CALL_SECONDS / seconds)))


def _levels(
    starts: Ints, ends: Ints, whole: Bools, width: int
) -> tuple[Ints, Ints, Ints, Ints, Bools]:
    """The levels' widths (each ``LONG_BUCKETS`` times the one's below), their first
    buckets' numbers (one more entry: the count of all buckets), each request's first and
    last bucket at the first level at which it touches at most ``LONG_BUCKETS`` of them,
    and whether it is too long for every level. The requests alive throughout (``whole``)
    are in no list: they do not count."""
    horizon = int(ends.max())
    first, last = starts // width, (ends - 1) // width
    long = last - first >= LONG_BUCKETS
    widths, bases = [width], [0, (horizon - 1) // width + 1]
    # While the list would be too long, a level of wider buckets takes what it can; the
    # last has one bucket over the horizon (a million buffers of real traces end to end,
    # each long for the first levels and short for the whole: 91,000 in the list at two
    # levels, every pass quadratic; one or two more levels take them).
    while np.count_nonzero(long & ~whole) > LONG_LIST_MOST and widths[-1] < horizon:
        wide = widths[-1] * LONG_BUCKETS
        at_first, at_last = starts // wide, (ends - 1) // wide
        lifted = long & (at_last - at_first < LONG_BUCKETS)
        first = np.where(lifted, bases[-1] + at_first, first)
        last = np.where(lifted, bases[-1] + at_last, last)
        long &= ~lifted
        widths.append(wide)
        bases.append(bases[-1] + (horizon - 1) // wide + 1)
    return np.array(widths, np.int64), np.array(bases, np.int64), first, last, long


def _ramps(lengths: Ints) -> Ints:
    """0, 1, ..., n-1 for each n in lengths, concatenated."""
    ends = np.cumsum(lengths)
    return np.arange(int(ends[-1]) if len(ends) else 0) - np.repeat(ends - lengths, lengths)
