"""The compiled loop of ``tilefit.search.local.anneal``: iterations of ruin and recreate.

Kept apart from the driver so that it stays in the subset of Python numba
compiles (see ``tilefit.search.kernel.jit``); the moves themselves are in
``tilefit.search.local.ruin``.
"""

from __future__ import annotations

import math
from typing import Any

from tilefit.search.kernel.jit import entry, jit
from tilefit.search.kernel.sorting import argsort
from tilefit.search.local.ruin import below, cheapest_base, displaced, free_runs, uniform

# knobs (see ``tilefit.search.local.anneal``), passed in so that tests and the driver may set them
EVICT, CHEAPEST, OTHERS, REACH, WHOLE = 0, 1, 2, 3, 4

# counters: cost now, best cost, iterations run, last stamp, iteration of the last better best
COST, BEST, DONE, STAMP, GAIN = 0, 1, 2, 3, 4


@entry
def settle(p: Any, y: Any, placed: Any, at: Any, buf: Any, counters: Any) -> None:
    """Place every block with ``at[k] >= 0`` there, in index order, when nothing placed
    before collides with it (a start that is valid by construction is kept whole)."""
    cost = 0
    for k in range(len(at)):
        if k >= len(p.size):
            break
        ok = False
        if at[k] >= 0:
            n = free_runs(k, p, y, placed, buf.lo, buf.hi, buf.runs_lo, buf.runs_hi)
            for t in range(n):
                if buf.runs_lo[t] <= at[k] <= buf.runs_hi[t] and (at[k] - p.res[k]) % p.mod[k] == 0:
                    ok = True
                    break
        if ok:
            y[k] = at[k]
            placed[k] = True
        else:
            cost += p.area[k]
    counters[COST] = cost
    counters[BEST] = cost


@jit
def _change(j: int, base: int, now: bool, y: Any, placed: Any, log: Any, n: int) -> int:
    """Set block j's state, logging the old one; returns the log's new length."""
    log[3 * n] = j
    log[3 * n + 1] = y[j]
    log[3 * n + 2] = 1 if placed[j] else 0
    y[j] = base
    placed[j] = now
    return n + 1


@jit
def _copy(y: Any, placed: Any, to_y: Any, to_placed: Any, n: int) -> None:
    """A state's first n blocks into another's (a loop: numba compiles a slice assignment
    with an error path that formats the shapes, a fifth of this module's compilation)."""
    for j in range(n):
        to_y[j] = y[j]
        to_placed[j] = placed[j]


@jit
def _place(j: int, fit: int, p: Any, y: Any, placed: Any, buf: Any, rng: Any) -> int:
    """A base for block j among the placed ones by the fit drawn, or -1 if none."""
    n = free_runs(j, p, y, placed, buf.lo, buf.hi, buf.runs_lo, buf.runs_hi)
    if n == 0:
        return -1
    lo = buf.runs_lo
    hi = buf.runs_hi
    if fit == 0:
        return int(lo[0])
    if fit == 1 or fit == 3:
        best = 0
        for t in range(1, n):
            if hi[t] - lo[t] < hi[best] - lo[best]:
                best = t
        return int(lo[best] if fit == 1 else hi[best])
    t = below(rng, n)
    return int(lo[t] if below(rng, 2) == 0 else hi[t])


@entry
def iterate(
    p: Any,
    y: Any,
    placed: Any,
    best_y: Any,
    best_placed: Any,
    counters: Any,
    rng: Any,
    buf: Any,
    temperature: float,
    period: int,
    knobs: Any,
    iterations: int,
) -> None:
    nblocks = len(p.size)
    queue = buf.queue
    keys = buf.keys
    for _ in range(iterations):
        if counters[BEST] == 0:
            return
        done = counters[DONE]
        if done > 0 and done % period == 0:  # hot again, from the best state seen
            _copy(best_y, best_placed, y, placed, nblocks)
            counters[COST] = counters[BEST]
        counters[DONE] = done + 1
        heat = temperature * (1.0 - (done % period) / period)
        # u: a block left out, drawn.
        left = 0
        for j in range(nblocks):
            if not placed[j]:
                left += 1
        pick = below(rng, left)
        u = -1
        for j in range(nblocks):
            if not placed[j]:
                if pick == 0:
                    u = j
                    break
                pick -= 1
        if p.dptr[u] == p.dptr[u + 1]:
            continue  # no valid base at all: it can never be placed
        if uniform(rng) < knobs[CHEAPEST]:
            whole = uniform(rng) < knobs[WHOLE]
            x = cheapest_base(u, p, y, placed, rng, buf.pos, buf.slope, buf.jump, buf.cand, whole)
        else:
            d = p.dptr[u] + below(rng, p.dptr[u + 1] - p.dptr[u])
            lo = p.dlo[d] + (p.res[u] - p.dlo[d]) % p.mod[u]
            if lo > p.dhi[d]:
                continue
            x = lo + p.mod[u] * below(rng, (p.dhi[d] - lo) // p.mod[u] + 1)
        if x < 0:
            continue
        counters[STAMP] += 1
        stamp = counters[STAMP]
        changes = 0
        cost = counters[COST]
        nq = 0
        if uniform(rng) < knobs[EVICT]:
            out = displaced(u, x, p, y, placed, buf.mark, stamp, buf.out)
            for t in range(out):
                j = buf.out[t]
                changes = _change(j, y[j], False, y, placed, buf.log, changes)
                cost += p.area[j]
                queue[nq] = j
                nq += 1
            changes = _change(u, x, True, y, placed, buf.log, changes)
            cost -= p.area[u]
        else:
            reach = int(p.size[u] * knobs[REACH] * (1 + below(rng, 4)))
            for k in range(p.ptr[u], p.ptr[u + 1]):
                j = p.other[k]
                if not placed[j] or buf.mark[j] == stamp:
                    continue
                if y[j] < x + p.size[u] + reach and x - reach < y[j] + p.size[j]:
                    buf.mark[j] = stamp
                    changes = _change(j, y[j], False, y, placed, buf.log, changes)
                    cost += p.area[j]
                    queue[nq] = j
                    nq += 1
            queue[nq] = u
            nq += 1
        if left > 1:
            share = knobs[OTHERS] / (left - 1)
            for j in range(nblocks):
                if not placed[j] and j != u and buf.mark[j] != stamp and uniform(rng) < share:
                    queue[nq] = j
                    nq += 1
        order = below(rng, 5)
        y[u] = x  # u's key in the order by base (it is not placed yet after a band)
        for t in range(nq):
            j = queue[t]
            if order == 0:
                keys[t] = -p.area[j] * (0.8 + 0.4 * uniform(rng))
            elif order == 1:
                keys[t] = -p.area[j]
            elif order == 2:
                keys[t] = uniform(rng)
            elif order == 3:
                keys[t] = -p.area[j] / p.room[j] * (0.8 + 0.4 * uniform(rng))
            else:  # where they stood, lowest first: with the lowest fit, a compaction
                keys[t] = y[j]
        ranked = argsort(keys, nq)
        fit = below(rng, 4)
        for t in range(nq):
            j = queue[ranked[t]]
            if placed[j]:
                continue
            base = _place(j, fit, p, y, placed, buf, rng)
            if base >= 0:
                changes = _change(j, base, True, y, placed, buf.log, changes)
                cost -= p.area[j]
        growth = cost - counters[COST]
        if growth <= 0 or (heat > 0.0 and uniform(rng) < math.exp(-growth / heat)):
            counters[COST] = cost
            if cost < counters[BEST]:
                counters[BEST] = cost
                counters[GAIN] = counters[DONE]
                _copy(y, placed, best_y, best_placed, nblocks)
        else:
            for t in range(changes - 1, -1, -1):
                j = buf.log[3 * t]
                y[j] = buf.log[3 * t + 1]
                placed[j] = buf.log[3 * t + 2] == 1
