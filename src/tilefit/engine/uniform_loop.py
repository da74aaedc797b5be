"""The compiled loop that places a uniform capture's requests one by one (``place_span``).

numba compiles it on first use (a few seconds, then cached on disk beside this module;
``tilefit compile`` and ``tilefit.search.compiling.ensure_compiled`` do it ahead of any
time limit); ``TILEFIT_NO_JIT=1`` runs it as plain Python, which the tests compare.
It calls nothing outside this module, so numba's own cache, keyed on this file, is
exact.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

Ints = NDArray[np.int64]
F = TypeVar("F", bound=Callable[..., Any])


def _choose() -> Callable[[F], F]:
    """numba's ``njit`` with its disk cache, or nothing under ``TILEFIT_NO_JIT``."""
    if os.environ.get("TILEFIT_NO_JIT"):
        return lambda function: function
    import numba

    compile_cached: Any = numba.njit(cache=True)
    return cast(Callable[[F], F], compile_cached)


_jit = _choose()


@_jit
def place_span(
    starts: Ints,
    ends: Ints,
    sizes: Ints,
    alignments: Ints,
    bounds: Ints,  # [low, high): the one allowed interval every request shares
    order: Ints,  # capture indices in placement order
    best: bool,  # the smallest hole that holds the request (ties: lower); else the lowest
    first_bucket: Ints,
    last_bucket: Ints,
    table_start: Ints,  # bucket b's slots: [table_start[b], table_start[b + 1])
    table: Ints,  # the placed requests of each bucket, in placement order
    filled: Ints,  # per bucket, its slots filled so far
    long: NDArray[np.bool_],  # requests kept in one list, not under their many buckets
    longs: Ints,  # the placed long requests by offset, as rows (start, end, low, high)
    placed_longs: Ints,  # [0]: how many rows of ``longs`` are filled
    offsets: Ints,  # by capture index, -1 until placed
    seen: Ints,  # by capture index: the position that last gathered it
    begin: int,
    end: int,
) -> int:
    """Place ``order[begin:end]``, filling ``offsets`` and the tables; the position of the
    first request with no valid offset, or -1 when every one of them is placed."""
    low, high = bounds[0], bounds[1]
    most = len(starts)
    gathered = np.empty(most, np.int64)
    lows = np.empty(most, np.int64)
    highs = np.empty(most, np.int64)
    for position in range(begin, end):
        i = order[position]
        count = 0
        start, stop = starts[i], ends[i]
        for b in range(first_bucket[i], last_bucket[i] + 1):
            for k in range(table_start[b], table_start[b] + filled[b]):
                j = table[k]
                if seen[j] != position and starts[j] < stop and ends[j] > start:
                    seen[j] = position
                    gathered[count] = j
                    count += 1
        shorts = gathered[:count][np.argsort(offsets[gathered[:count]])]
        count = _merge(start, stop, sizes, offsets, shorts, longs, placed_longs[0], lows, highs)
        size, alignment = sizes[i], alignments[i]
        if best:
            x = _smallest_hole(lows, highs, count, low, high, size, alignment)
        else:
            x = _lowest(lows, highs, count, low, size, alignment)
        if x < 0 or x + size > high:
            return position
        offsets[i] = x
        if long[i]:
            _insert(longs, placed_longs[0], start, stop, x, x + size)
            placed_longs[0] += 1
        else:
            for b in range(first_bucket[i], last_bucket[i] + 1):
                table[table_start[b] + filled[b]] = i
                filled[b] += 1
    return -1


@_jit
def _merge(
    start: int,
    stop: int,
    sizes: Ints,
    offsets: Ints,
    shorts: Ints,
    longs: Ints,
    count_longs: int,
    lows: Ints,
    highs: Ints,
) -> int:
    """The placed requests alive during [start, stop), by offset, as blocks in ``lows``
    and ``highs``: the short ones (sorted already) merged with the long rows alive then."""
    count, s = 0, 0
    for k in range(count_longs + 1):
        last = k == count_longs
        if not last and not (longs[k, 0] < stop and longs[k, 1] > start):
            continue
        while s < len(shorts) and (last or offsets[shorts[s]] <= longs[k, 2]):
            lows[count] = offsets[shorts[s]]
            highs[count] = lows[count] + sizes[shorts[s]]
            count += 1
            s += 1
        if not last:
            lows[count] = longs[k, 2]
            highs[count] = longs[k, 3]
            count += 1
    return count


@_jit
def _insert(longs: Ints, count: int, start: int, stop: int, low: int, high: int) -> None:
    """A row (start, stop, low, high) into the first ``count`` rows, kept by ``low``: the
    rows are read in order for every request, so they lie side by side in memory."""
    k = count
    while k > 0 and longs[k - 1, 2] > low:
        longs[k] = longs[k - 1]
        k -= 1
    longs[k, 0], longs[k, 1], longs[k, 2], longs[k, 3] = start, stop, low, high


@_jit
def _lowest(lows: Ints, highs: Ints, count: int, low: int, size: int, alignment: int) -> int:
    """The lowest aligned offset >= low clear of the first ``count`` blocks (sorted by
    start), past ``high`` when none is."""
    x = _up(low, alignment)
    for k in range(count):
        if lows[k] >= x + size:
            break
        if highs[k] > x:
            x = _up(highs[k], alignment)
    return x


@_jit
def _up(x: int, alignment: int) -> int:
    """``x`` rounded up to a multiple of ``alignment`` (a power of two: no division)."""
    if alignment & (alignment - 1) == 0:
        return (x + alignment - 1) & -alignment
    return (x + alignment - 1) // alignment * alignment


@_jit
def _smallest_hole(
    lows: Ints, highs: Ints, count: int, low: int, high: int, size: int, alignment: int
) -> int:
    """The aligned start of the smallest hole in [low, high) that holds the request (ties:
    the lower hole; a hole's length counts before alignment, as ``engine.fits`` counts
    it), or -1."""
    chosen, chosen_length = -1, high - low + 1
    x = low
    for k in range(count):
        if lows[k] > x:
            chosen, chosen_length = _better(x, lows[k], size, alignment, chosen, chosen_length)
        if highs[k] > x:
            x = highs[k]
    if high > x:
        chosen, chosen_length = _better(x, high, size, alignment, chosen, chosen_length)
    return chosen


@_jit
def _better(
    start: int, stop: int, size: int, alignment: int, chosen: int, chosen_length: int
) -> tuple[int, int]:
    length = stop - start
    base = _up(start, alignment)
    if length < chosen_length and base + size <= stop:
        return base, length
    return chosen, chosen_length
