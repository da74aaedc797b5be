"""The compiled sweep: the fits for requests placed in order of their starts (``sweep_span``).

Placed in start order, a request meets exactly the placed requests still alive at its
start, so the holes it may use are an allocator's free intervals at that moment. The
sweep keeps those intervals (a request's bytes given back when it ends, merged with the
holes beside them) where ``place_span`` gathers every live neighbour of each request:
a pass over a training step's million buffers, 200,000 of them alive at its turn, placed
70,000 in 150 s there. Each request goes to the lowest aligned offset of the lowest hole
that holds it, or (best-fit) in the shortest such hole: the same offsets as
``place_span``'s in the same order (``tests/engine/test_sweep.py``).

The holes are kept by address in chunks of at most ``WIDTH`` (the chunks in address
order in ``chain``), each with the length of its longest hole, so that a fit looks
inside the chunks that may hold the request only. It calls nothing outside this
module: numba's cache, keyed on this file, is exact.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from tilefit.engine.jit import loop_decorator

Ints = NDArray[np.int64]

WIDTH = 128
"""Holes a chunk holds; a full chunk is split in two."""

# The fields of ``state``, the sweep's scalars kept between calls.
CHUNKS = 0  # chunks in ``chain``
RELEASED = 1  # requests of ``by_end`` given back so far
SPARE = 2  # chunk numbers on the ``spare`` stack
REPACKS = 3  # repackings so far (for the tests)


class Holes(NamedTuple):
    """The sweep's free holes, kept between calls (numba passes them as one argument)."""

    lows: Ints  # per chunk and slot, a hole's first byte
    highs: Ints  # ... and the byte past its last
    held: Ints  # per chunk, its holes
    longest: Ints  # per chunk, its longest hole's length
    chain: Ints  # the chunks in use, by address
    spare: Ints  # the chunks not in use (a stack)
    state: Ints  # the scalars below


_entry = loop_decorator(entry=True)
_jit = loop_decorator(entry=False)


def chunk_rows(requests: int, width: int = WIDTH) -> int:
    """Chunks to allocate for a sweep over ``requests``: at most one hole more than the
    requests alive, in chunks of ``width`` at least half full after a repacking, with
    room for as many splits again before the next."""
    return 4 * (requests + 1) // width + 8


@_entry
def sweep_span(
    starts: Ints,
    ends: Ints,
    sizes: Ints,
    alignments: Ints,
    order: Ints,  # capture indices, starts ascending
    best: bool,  # the smallest hole that holds the request (ties: lower); else the lowest
    by_end: Ints,  # the same requests, ends ascending
    h: Holes,
    offsets: Ints,  # by capture index, -1 until placed
    begin: int,
    end: int,
) -> int:
    """Place ``order[begin:end]``, filling ``offsets``: the position of the first request
    with no hole that holds it, or -1 when every one of them is placed."""
    state = h.state
    for position in range(begin, end):
        i = order[position]
        now = starts[i]
        released = state[RELEASED]
        while released < len(by_end) and ends[by_end[released]] <= now:
            q = by_end[released]
            _give_back(offsets[q], offsets[q] + sizes[q], h)
            released += 1
        state[RELEASED] = released
        j, k = _choose(sizes[i], alignments[i], best, h)
        if j < 0:
            return position
        offsets[i] = _take(j, k, sizes[i], alignments[i], h)
    return -1


@_jit
def _up(x: int, alignment: int) -> int:
    """``x`` rounded up to a multiple of ``alignment``."""
    if alignment & (alignment - 1) == 0:
        return (x + alignment - 1) & -alignment
    return (x + alignment - 1) // alignment * alignment


@_jit
def _choose(size: int, alignment: int, best: bool, h: Holes) -> tuple[int, int]:
    """The hole for ``size`` bytes at ``alignment`` (its position in ``chain`` and its
    slot): the lowest that holds it, or (``best``) the shortest, ties to the lower (a
    hole's length counts before alignment, as ``engine.fits`` counts it); (-1, -1) when
    none holds it."""
    lows, highs, held, longest, chain, state = h.lows, h.highs, h.held, h.longest, h.chain, h.state
    chosen_j, chosen_k, chosen_length = -1, -1, 0
    for j in range(state[CHUNKS]):
        c = chain[j]
        if longest[c] < size:
            continue
        for k in range(held[c]):
            low, high = lows[c, k], highs[c, k]
            if _up(low, alignment) + size > high:
                continue
            if not best:
                return j, k
            if chosen_j < 0 or high - low < chosen_length:
                chosen_j, chosen_k, chosen_length = j, k, high - low
                if chosen_length == size:  # none shorter holds it: the lowest of these
                    return chosen_j, chosen_k
    return chosen_j, chosen_k


@_jit
def _take(j: int, k: int, size: int, alignment: int, h: Holes) -> int:
    """The request's bytes at the lowest aligned offset of the hole at slot ``k`` of the
    ``j``-th chunk, taken out of it: that offset."""
    lows, highs, held, longest, chain = h.lows, h.highs, h.held, h.longest, h.chain
    c = chain[j]
    low, high = lows[c, k], highs[c, k]
    x = _up(low, alignment)
    if x == low and x + size == high:
        _delete(j, k, h)
        return x
    if x > low:  # the gap below it stays a hole
        highs[c, k] = x
    else:
        lows[c, k] = x + size
    _measure(c, lows, highs, held, longest)
    if x > low and x + size < high:  # and the bytes above it another
        _insert(j, k + 1, x + size, high, h)
    return x


@_jit
def _give_back(low: int, high: int, h: Holes) -> None:
    """[low, high) free again: merged with the hole ending at ``low`` and the one starting
    at ``high``, or a hole of its own."""
    lows, highs, held, longest, chain, state = h.lows, h.highs, h.held, h.longest, h.chain, h.state
    # The last hole starting below ``low`` (none: j == -1 or k == -1) and the one after.
    j = _chunk_at(low, lows, chain, state[CHUNKS])
    k = -1
    if j >= 0:
        k = _slot_at(low, lows, chain[j], held[chain[j]])
    nj, nk = j, k + 1
    if j < 0:
        nj, nk = 0, 0
    elif nk == held[chain[j]]:
        nj, nk = j + 1, 0
    before = j >= 0 and highs[chain[j], k] == low
    after = nj < state[CHUNKS] and lows[chain[nj], nk] == high
    if before and after:
        highs[chain[j], k] = highs[chain[nj], nk]
        _measure(chain[j], lows, highs, held, longest)
        _delete(nj, nk, h)
    elif before:
        highs[chain[j], k] = high
        _measure(chain[j], lows, highs, held, longest)
    elif after:
        lows[chain[nj], nk] = low
        _measure(chain[nj], lows, highs, held, longest)
    elif j < 0:  # (nj, nk: 0, 0 not as constants, which numba compiles a call for again)
        _insert(nj, nk, low, high, h)
    else:
        _insert(j, k + 1, low, high, h)


@_jit
def _chunk_at(x: int, lows: Ints, chain: Ints, chunks: int) -> int:
    """The position in ``chain`` of the last chunk whose first hole starts below ``x``;
    -1 when none does."""
    lo, hi = 0, chunks
    while lo < hi:
        mid = (lo + hi) // 2
        if lows[chain[mid], 0] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


@_jit
def _slot_at(x: int, lows: Ints, c: int, count: int) -> int:
    """The slot in chunk ``c`` of its last hole starting below ``x``."""
    lo, hi = 0, count
    while lo < hi:
        mid = (lo + hi) // 2
        if lows[c, mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


@_jit
def _measure(c: int, lows: Ints, highs: Ints, held: Ints, longest: Ints) -> None:
    best = 0
    for k in range(held[c]):
        best = max(best, highs[c, k] - lows[c, k])
    longest[c] = best


@_jit
def _insert(j: int, k: int, low: int, high: int, h: Holes) -> None:
    """The hole [low, high) at slot ``k`` of the ``j``-th chunk by address (a new first
    chunk when there is none); a full chunk is split first."""
    lows, highs, held, longest, chain, state = h.lows, h.highs, h.held, h.longest, h.chain, h.state
    if state[CHUNKS] == 0:  # (the first position, not a constant: one compilation)
        c = _new_chunk(state[CHUNKS], h)
        lows[c, 0], highs[c, 0], held[c], longest[c] = low, high, 1, high - low
        return
    c = chain[j]
    while held[c] == lows.shape[1]:
        d = _new_chunk(j + 1, h)
        if d < 0:  # repacked, every chunk half full: the slot found again
            j = max(_chunk_at(low, lows, chain, state[CHUNKS]), 0)
            c = chain[j]
            k = _slot_at(low, lows, c, held[c]) + 1
            continue
        half = held[c] // 2
        moved = held[c] - half
        for s in range(moved):
            lows[d, s], highs[d, s] = lows[c, half + s], highs[c, half + s]
        held[d], held[c] = moved, half
        _measure(c, lows, highs, held, longest)
        _measure(d, lows, highs, held, longest)
        if k > half:
            c, k = d, k - half
    count = held[c]
    for s in range(count, k, -1):
        lows[c, s], highs[c, s] = lows[c, s - 1], highs[c, s - 1]
    lows[c, k], highs[c, k] = low, high
    held[c] = count + 1
    longest[c] = max(longest[c], high - low)


@_jit
def _delete(j: int, k: int, h: Holes) -> None:
    """The hole at slot ``k`` of the ``j``-th chunk by address removed; an emptied chunk
    leaves the chain."""
    lows, highs, held, longest, chain, spare, state = h
    c = chain[j]
    count = held[c] - 1
    for s in range(k, count):
        lows[c, s], highs[c, s] = lows[c, s + 1], highs[c, s + 1]
    held[c] = count
    if count > 0:
        _measure(c, lows, highs, held, longest)
        return
    chunks = state[CHUNKS] - 1
    for s in range(j, chunks):
        chain[s] = chain[s + 1]
    state[CHUNKS] = chunks
    spare[state[SPARE]] = c
    state[SPARE] += 1


@_jit
def _new_chunk(j: int, h: Holes) -> int:
    """An empty chunk at position ``j`` of the chain; -1 when none was spare, after
    repacking every hole into chunks half full (the caller then looks again)."""
    held, longest, chain, spare, state = h.held, h.longest, h.chain, h.spare, h.state
    if state[SPARE] == 0:
        _repack(h)
        return -1
    state[SPARE] -= 1
    c = int(spare[state[SPARE]])
    chunks = state[CHUNKS]
    for s in range(chunks, j, -1):
        chain[s] = chain[s - 1]
    chain[j] = c
    state[CHUNKS] = chunks + 1
    held[c], longest[c] = 0, 0
    return c


@_jit
def _repack(h: Holes) -> None:
    """Every hole, in address order, into chunks half full, numbered from 0."""
    lows, highs, held, longest, chain, spare, state = h
    total = 0
    for j in range(state[CHUNKS]):
        total += held[chain[j]]
    all_lows, all_highs = np.empty(total, np.int64), np.empty(total, np.int64)
    n = 0
    for j in range(state[CHUNKS]):
        c = chain[j]
        for k in range(held[c]):
            all_lows[n], all_highs[n] = lows[c, k], highs[c, k]
            n += 1
    half = lows.shape[1] // 2
    chunks = (total + half - 1) // half
    for c in range(chunks):
        first = c * half
        count = min(half, total - first)
        for s in range(count):
            lows[c, s], highs[c, s] = all_lows[first + s], all_highs[first + s]
        held[c] = count
        chain[c] = c
        _measure(c, lows, highs, held, longest)
    rows = lows.shape[0]
    for s in range(rows - chunks):
        spare[s] = rows - 1 - s
    state[CHUNKS], state[SPARE] = chunks, rows - chunks
    state[REPACKS] += 1
