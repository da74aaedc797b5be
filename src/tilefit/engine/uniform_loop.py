"""The compiled loop that places a uniform capture's requests one by one (``place_span``).

numba compiles it on first use (a few seconds, then cached on disk beside this module;
``tilefit compile`` and ``tilefit.search.compiling.ensure_compiled`` do it ahead of any
time limit). ``TILEFIT_NO_JIT=1`` would run it as plain Python, far slower than the
one-by-one engine, which ``tilefit.engine.attempt`` then uses instead. It calls nothing
outside this module, so numba's own cache, keyed on this file, is exact; the tests
compare its placements with the one-by-one engine's.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from tilefit.engine.jit import loop_decorator

Ints = NDArray[np.int64]

_entry = loop_decorator(entry=True)
_jit = loop_decorator(entry=False)


@_entry
def place_span(
    starts: Ints,
    ends: Ints,
    sizes: Ints,
    alignments: Ints,
    bounds: Ints,  # [low, high): the one allowed interval every request shares
    order: Ints,  # capture indices in placement order
    best: bool,  # the smallest hole that holds the request (ties: lower); else the lowest
    first_bucket: Ints,  # the buckets each request sits under, numbered over all levels
    last_bucket: Ints,
    table_start: Ints,  # bucket b's slots: [table_start[b], table_start[b + 1])
    table: Ints,  # the placed requests of each bucket, in placement order
    filled: Ints,  # per bucket, its slots filled so far
    widths: Ints,  # per level, the steps of its buckets
    bases: Ints,  # per level, the number of its first bucket
    long: NDArray[np.bool_],  # requests kept in one list, too long for every level
    longs: Ints,  # the placed long requests by offset, as rows (start, end, low, high)
    whole: NDArray[np.bool_],  # requests alive whenever any other is
    unions: Ints,  # rows 0-1: every placed request's addresses; rows 2-3: the whole ones'
    counts: Ints,  # long rows filled, intervals of each union (-1: that of all given up)
    offsets: Ints,  # by capture index, -1 until placed
    seen: Ints,  # by capture index: the position that last gathered it
    begin: int,
    end: int,
) -> int:
    """Place ``order[begin:end]``, filling ``offsets`` and the tables; the position of the
    first request with no valid offset, or -1 when every one of them is placed.

    A request alive whenever any other is meets every placed one, so it reads the union
    of their addresses, kept up to date (while it stays under ``unions``' width); the
    others read the union of the whole ones' addresses, not each of them."""
    low, high = bounds[0], bounds[1]
    most = len(starts)
    gathered = np.empty(most, np.int64)
    lows, highs = np.empty(most, np.int64), np.empty(most, np.int64)
    merged_lows, merged_highs = np.empty(most, np.int64), np.empty(most, np.int64)
    for position in range(begin, end):
        i = order[position]
        start, stop = starts[i], ends[i]
        if whole[i] and counts[1] >= 0:
            blocks_low, blocks_high, count = unions[0], unions[1], counts[1]
        else:
            count = _gather(start, stop, starts, ends, widths, bases, table_start, table,
                            filled, seen, position, gathered)  # fmt: skip
            _by_offset(gathered, count, offsets, merged_lows)  # scratch until interleaved
            count = _merge(
                start, stop, sizes, offsets, gathered, count, longs, counts[0], lows, highs
            )
            count = _interleave(
                lows, highs, count, unions[2], unions[3], counts[2], merged_lows, merged_highs
            )
            blocks_low, blocks_high = merged_lows, merged_highs
        size, alignment = sizes[i], alignments[i]
        if best:
            x = _smallest_hole(blocks_low, blocks_high, count, low, high, size, alignment)
        else:
            x = _lowest(blocks_low, blocks_high, count, low, size, alignment)
        if x < 0 or x + size > high:
            return position
        offsets[i] = x
        if counts[1] >= 0:
            counts[1] = _unite(unions[0], unions[1], counts[1], x, x + size)
        if whole[i]:
            counts[2] = _unite(unions[2], unions[3], counts[2], x, x + size)
        elif long[i]:
            _insert(longs, counts[0], start, stop, x, x + size)
            counts[0] += 1
        else:
            for b in range(first_bucket[i], last_bucket[i] + 1):
                table[table_start[b] + filled[b]] = i
                filled[b] += 1
    return -1


@_jit
def _gather(
    start: int,
    stop: int,
    starts: Ints,
    ends: Ints,
    widths: Ints,
    bases: Ints,
    table_start: Ints,
    table: Ints,
    filled: Ints,
    seen: Ints,
    position: int,
    gathered: Ints,
) -> int:
    """The placed requests under buckets (not the long or whole ones) alive during
    [start, stop) into ``gathered``, each once: those under the buckets the lifetime
    touches, at every level; how many."""
    count = 0
    for level in range(len(widths)):
        width, base = widths[level], bases[level]
        for b in range(base + start // width, base + (stop - 1) // width + 1):
            for k in range(table_start[b], table_start[b] + filled[b]):
                j = table[k]
                if seen[j] != position and starts[j] < stop and ends[j] > start:
                    seen[j] = position
                    gathered[count] = j
                    count += 1
    return count


@_jit
def _interleave(
    a_low: Ints,
    a_high: Ints,
    a_count: int,
    b_low: Ints,
    b_high: Ints,
    b_count: int,
    out_low: Ints,
    out_high: Ints,
) -> int:
    """Two lists of blocks, each sorted by start, as one list sorted by start."""
    a, b, count = 0, 0, 0
    while a < a_count or b < b_count:
        if b == b_count or (a < a_count and a_low[a] <= b_low[b]):
            out_low[count], out_high[count] = a_low[a], a_high[a]
            a += 1
        else:
            out_low[count], out_high[count] = b_low[b], b_high[b]
            b += 1
        count += 1
    return count


@_jit
def _unite(union_low: Ints, union_high: Ints, count: int, low: int, high: int) -> int:
    """[low, high) into the disjoint intervals ``union_low/high[:count]`` (sorted; touching
    ones joined); their new count, or -1 when they would outgrow the arrays."""
    first = _first_above(union_high, count, low - 1)  # the first that reaches low
    after = _first_above(union_low, count, high)  # the first past high
    if first < after:
        low = min(low, union_low[first])
        high = max(high, union_high[after - 1])
    grown = int(count - (after - first) + 1)
    if grown > len(union_low):
        return -1
    # The intervals from ``after`` on move to ``first + 1`` (either way: a loop, not a
    # slice assignment, whose compiled error path formats the shapes).
    shift = first + 1 - after
    span = range(after, count) if shift < 0 else range(count - 1, after - 1, -1)
    for k in span:
        union_low[k + shift], union_high[k + shift] = union_low[k], union_high[k]
    union_low[first], union_high[first] = low, high
    return grown


@_jit
def _first_above(values: Ints, count: int, bound: int) -> int:
    """The first k < count with values[k] > bound (``values[:count]`` ascending), or count."""
    lo, hi = 0, count
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] > bound:
            hi = mid
        else:
            lo = mid + 1
    return lo


@_jit
def _by_offset(requests: Ints, count: int, offsets: Ints, spare: Ints) -> None:
    """``requests[:count]`` sorted by their offsets, in place (a merge sort through
    ``spare``: numba's ``np.argsort`` compiles slowly; the order of equal offsets, of
    requests that never meet, changes no placement)."""
    width = 1
    while width < count:
        for lo in range(0, count, 2 * width):
            mid, hi = min(lo + width, count), min(lo + 2 * width, count)
            i, j = lo, mid
            for k in range(lo, hi):
                if j >= hi or (i < mid and offsets[requests[i]] <= offsets[requests[j]]):
                    spare[k] = requests[i]
                    i += 1
                else:
                    spare[k] = requests[j]
                    j += 1
        for k in range(count):
            requests[k] = spare[k]
        width *= 2


@_jit
def _merge(
    start: int,
    stop: int,
    sizes: Ints,
    offsets: Ints,
    shorts: Ints,
    count_shorts: int,
    longs: Ints,
    count_longs: int,
    lows: Ints,
    highs: Ints,
) -> int:
    """The placed requests alive during [start, stop), by offset, as blocks in ``lows``
    and ``highs``: the short ones (``shorts[:count_shorts]``, sorted already) merged with
    the long rows alive then."""
    count, s = 0, 0
    for k in range(count_longs + 1):
        last = k == count_longs
        if not last and not (longs[k, 0] < stop and longs[k, 1] > start):
            continue
        while s < count_shorts and (last or offsets[shorts[s]] <= longs[k, 2]):
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
        for column in range(4):  # not a row assignment: see _unite
            longs[k, column] = longs[k - 1, column]
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
