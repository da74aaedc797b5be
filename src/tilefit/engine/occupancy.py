"""Occupancy: the placed requests, indexed by time.

A unit only needs the placed requests alive during its lifetime ``[s, e)``,
which are those alive at step s that started before it plus those starting
in ``[s, e)``. Time is cut into buckets of equal width; each bucket lists the
requests starting in it (sorted by start) and those crossing its left edge
(sorted by end), so both parts come out as slices found by binary search,
with no request read twice and few read in vain.

Three kinds of long-lived request would cross many edges and are kept apart:
those alive over the whole horizon (merged into few disjoint address
intervals, since resident data sits back to back), those alive until the
horizon (sorted by start) and those alive from step 0 (sorted by end).

A unit alive over the whole horizon (resident data again) must avoid every
request ever placed; when the capture has such units, the union of all placed
address intervals is kept up to date, merged, so that they need no sort.

In a cyclic capture a lifetime with ``start >= end`` wraps around the circle
of ``horizon`` steps (``tilefit.model.arcs``): it is added, and asked about,
as its two pieces ``[start, horizon)`` and ``[0, end)``, which fall among the
long-lived kinds above.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from math import isqrt

from tilefit.model.capture import Interval, Request
from tilefit.model.intervals import merge


class Occupancy:
    __slots__ = (
        "_always_ends",
        "_always_starts",
        "_anytime_ends",
        "_anytime_starts",
        "_cross",
        "_cross_ends",
        "_from_zero",
        "_from_zero_ends",
        "_horizon",
        "_keep_union",
        "_long_lived",
        "_starting",
        "_starting_ends",
        "_starting_starts",
        "_to_horizon",
        "_to_horizon_starts",
        "_width",
        "peak",
    )

    def __init__(self, horizon: int, width: int, keep_union: bool = True) -> None:
        self._horizon = horizon
        self._width = width
        count = horizon // width + 1
        # Per bucket, parallel lists sorted by start: requests starting in it.
        self._starting_starts: list[list[int]] = [[] for _ in range(count)]
        self._starting_ends: list[list[int]] = [[] for _ in range(count)]
        self._starting: list[list[Interval]] = [[] for _ in range(count)]
        # Per bucket, sorted by end: requests alive at its first step that started before.
        self._cross_ends: list[list[int]] = [[] for _ in range(count)]
        self._cross: list[list[Interval]] = [[] for _ in range(count)]
        self._to_horizon_starts: list[int] = []
        self._to_horizon: list[Interval] = []
        self._from_zero_ends: list[int] = []
        self._from_zero: list[Interval] = []
        # Disjoint and ascending, touching intervals merged: what is occupied at every step.
        self._always_starts: list[int] = []
        self._always_ends: list[int] = []
        # Disjoint and ascending: what is occupied at some step (when keep_union).
        self._keep_union = keep_union
        self._anytime_starts: list[int] = []
        self._anytime_ends: list[int] = []
        self._long_lived = False  # whether any request lives from step 0 or to the horizon
        self.peak = 0  # the highest address occupied so far (exclusive)

    def add(self, lo: int, hi: int, start: int, end: int) -> None:
        if end <= start:  # wraps around the circle: its two pieces
            self.add(lo, hi, start, self._horizon)
            self.add(lo, hi, 0, end)
            return
        if hi > self.peak:
            self.peak = hi
        if self._keep_union:
            self._add_anytime(lo, hi)
        interval = (lo, hi)
        if start == 0 or end == self._horizon:
            self._add_long_lived(interval, start, end)
            return
        width = self._width
        first = start // width
        starts = self._starting_starts[first]
        k = bisect_right(starts, start)
        starts.insert(k, start)
        self._starting_ends[first].insert(k, end)
        self._starting[first].insert(k, interval)
        last = (end - 1) // width
        if last > first:
            cross_ends, cross = self._cross_ends, self._cross
            for bucket in range(first + 1, last + 1):
                ends = cross_ends[bucket]
                k = bisect_right(ends, end)
                ends.insert(k, end)
                cross[bucket].insert(k, interval)

    def alive(self, start: int, end: int) -> list[Interval]:
        """Address intervals of the requests alive during ``[start, end)`` (on the circle
        when it wraps), unsorted."""
        if end <= start:
            return self.alive(0, end) + self.alive(start, self._horizon)
        if start == 0 and end == self._horizon and self._keep_union:
            return list(zip(self._anytime_starts, self._anytime_ends, strict=True))
        width = self._width
        first, last = start // width, (end - 1) // width
        out = self._cross[first][bisect_right(self._cross_ends[first], start) :]
        starts = self._starting_starts[first]
        starting = self._starting[first]
        k = bisect_left(starts, start)
        if k:  # started earlier in the first bucket: keep those still alive
            ends = self._starting_ends[first]
            out += [starting[j] for j in range(k) if ends[j] > start]
        if first == last:
            out += starting[k : bisect_left(starts, end)]
        else:
            out += starting[k:]
            for bucket in range(first + 1, last):
                out += self._starting[bucket]
            out += self._starting[last][: bisect_left(self._starting_starts[last], end)]
        if self._long_lived:
            out += self._to_horizon[: bisect_left(self._to_horizon_starts, end)]
            out += self._from_zero[bisect_right(self._from_zero_ends, start) :]
            out += zip(self._always_starts, self._always_ends, strict=True)
        return out

    def alive_merged(self, start: int, end: int) -> tuple[list[int], list[int]]:
        """The addresses of ``alive(start, end)`` as disjoint intervals (starts, ends)."""
        if start == 0 and end == self._horizon and self._keep_union:
            return list(self._anytime_starts), list(self._anytime_ends)
        blocks = self.alive(start, end)
        blocks.sort()
        return merge(blocks)

    def _add_anytime(self, lo: int, hi: int) -> None:
        starts, ends = self._anytime_starts, self._anytime_ends
        first = bisect_left(ends, lo)  # the first interval that reaches lo
        last = bisect_right(starts, hi)  # past the last interval that starts by hi
        if first < last:
            lo = min(lo, starts[first])
            hi = max(hi, ends[last - 1])
        starts[first:last] = [lo]
        ends[first:last] = [hi]

    def _add_long_lived(self, interval: Interval, start: int, end: int) -> None:
        self._long_lived = True
        if start > 0:
            _insert(self._to_horizon_starts, self._to_horizon, start, interval)
        elif end < self._horizon:
            _insert(self._from_zero_ends, self._from_zero, end, interval)
        else:
            self._add_always(*interval)

    def _add_always(self, lo: int, hi: int) -> None:
        starts, ends = self._always_starts, self._always_ends
        k = bisect_left(starts, lo)
        # Placed requests alive at the same step never overlap, so only touching neighbours merge.
        if k > 0 and ends[k - 1] == lo:
            k -= 1
            lo = starts[k]
            del starts[k], ends[k]
        if k < len(starts) and starts[k] == hi:
            hi = ends[k]
            del starts[k], ends[k]
        starts.insert(k, lo)
        ends.insert(k, hi)


def _insert(keys: list[int], intervals: list[Interval], key: int, interval: Interval) -> None:
    k = bisect_right(keys, key)
    keys.insert(k, key)
    intervals.insert(k, interval)


def bucket_width(requests: tuple[Request, ...], horizon: int) -> int:
    """Balance the requests read in vain in a bucket against the buckets a lifetime spans.

    A bucket holding w steps of starts costs about ``w * rate`` reads, a lifetime
    of d steps about ``d / w`` slices and edge insertions, so ``w ~ sqrt(d / rate)``.
    """
    spans = [r.end - r.start for r in requests if 0 < r.start < r.end < horizon]
    if not spans:
        return max(1, horizon)
    rate = len(spans) / horizon  # starts per step
    return max(1, isqrt(int(32 * _median(spans) / rate)))


def _median(values: list[int]) -> float:
    """``statistics.median``, whose import (fractions, decimal, random: 3 ms) every
    command that replays a capture paid for this one call."""
    ordered = sorted(values)
    half = len(ordered) // 2
    return ordered[half] if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2
