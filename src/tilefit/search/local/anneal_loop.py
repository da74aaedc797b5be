"""The compiled loop of ``tilefit.search.local.anneal``: iterations of ruin and recreate.

Kept apart from the driver so that it stays in the subset of Python numba
compiles (see ``tilefit.search.kernel.jit``); the moves themselves are in
``tilefit.search.local.ruin``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tilefit.search.kernel.jit import jit
from tilefit.search.local.ruin import (
    below,
    cheapest_base,
    collide,
    displaced,
    free_runs,
    free_runs_among,
    nearest,
    uniform,
    way,
)

# knobs (see ``tilefit.search.local.anneal``), passed in so that tests and the driver may set them
EVICT, CHEAPEST, OTHERS, REACH, WHOLE, SLIDE, DEPTH, SHIFT = 0, 1, 2, 3, 4, 5, 6, 7

# counters: cost now, best cost, iterations run, last stamp, iteration of the last better best,
# blocks slid to a free base, blocks pushed (in chains kept, the iteration kept or not)
COST, BEST, DONE, STAMP, GAIN, SLID, PUSHED = 0, 1, 2, 3, 4, 5, 6


@jit
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


@jit
def _slide(
    u: int,
    x: int,
    p: Any,
    y: Any,
    placed: Any,
    counters: Any,
    buf: Any,
    stamp: int,
    changes: int,
    cost: int,
    depth: int,
    shift: float,
) -> tuple[int, int, int]:
    """Put u at x, sliding what it collides with instead of evicting it.

    Each block in u's way (all taken out first), its *head*, goes to the valid base
    nearest its own where it collides with nothing placed, if that is within ``shift``
    times its and u's sizes. Else, at a level below ``depth``, it is *pushed*: to the nearest
    base on its side (away from the block pushing it) clear of the blocks this move has
    put or kept, as far at most, and what it collides with there is taken out to slide
    or be pushed in turn, each head's chain before the next head's. A chain whose blocks
    left out weigh no less than its head is undone, and the head stays out instead; the
    blocks a chain undone had taken out stay where they stood, and no later chain moves
    them. Every block is taken out at most once (``mark``), so the state stays valid;
    every change is logged. The blocks left out go to ``buf.queue``. Returns (changes,
    cost, blocks queued)."""
    out = buf.out
    n = collide(u, x, p, y, placed, buf.mark, stamp, out, 0)
    for t in range(n):
        j = out[t]
        buf.level[t] = 1
        buf.ways[t] = way(j, u, x, p, y)
        changes = _change(j, y[j], False, y, placed, buf.log, changes)
        cost += p.area[j]
    changes = _change(u, x, True, y, placed, buf.log, changes)
    cost -= p.area[u]
    buf.mark[u] = stamp
    nq = 0
    heads = n
    for head in range(heads):
        kept = changes  # the chain's checkpoint
        kept_cost = cost
        kept_nq = nq
        kept_n = n
        lost = 0  # area the chain leaves out
        slid = 0
        pushed = 0
        h = head
        while h < n:
            j = out[h]
            level = buf.level[h]
            old = y[j]
            cap = int(shift * (p.size[u] + p.size[j]))
            runs = free_runs(j, p, y, placed, buf.lo, buf.hi, buf.runs_lo, buf.runs_hi)
            b = nearest(old, runs, buf.runs_lo, buf.runs_hi, p.res[j], p.mod[j], 0)
            if b >= 0 and abs(b - old) <= cap:
                changes = _change(j, b, True, y, placed, buf.log, changes)
                cost -= p.area[j]
                slid += 1
            else:
                b = -1
                if level < depth:
                    runs = free_runs_among(
                        j, p, y, placed, buf.mark, stamp, buf.lo, buf.hi, buf.runs_lo, buf.runs_hi
                    )
                    side = buf.ways[h]
                    b = nearest(old, runs, buf.runs_lo, buf.runs_hi, p.res[j], p.mod[j], side)
                    if abs(b - old) > cap:
                        b = -1
                if b >= 0:
                    first = n
                    n = collide(j, b, p, y, placed, buf.mark, stamp, out, n)
                    for t in range(first, n):
                        k = out[t]
                        buf.level[t] = level + 1
                        buf.ways[t] = way(k, j, b, p, y)
                        changes = _change(k, y[k], False, y, placed, buf.log, changes)
                        cost += p.area[k]
                    changes = _change(j, b, True, y, placed, buf.log, changes)
                    cost -= p.area[j]
                    pushed += 1
                else:
                    buf.queue[nq] = j
                    nq += 1
                    lost += p.area[j]
            h = kept_n if h == head else h + 1
        if pushed > 0 and lost >= p.area[out[head]]:
            for t in range(changes - 1, kept - 1, -1):
                j = buf.log[3 * t]
                y[j] = buf.log[3 * t + 1]
                placed[j] = buf.log[3 * t + 2] == 1
            changes = kept
            cost = kept_cost
            n = kept_n
            nq = kept_nq
            buf.queue[nq] = out[head]
            nq += 1
        else:
            counters[SLID] += slid
            counters[PUSHED] += pushed
    return changes, cost, nq


@jit
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
            y[:nblocks] = best_y[:nblocks]
            placed[:nblocks] = best_placed[:nblocks]
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
        evict = uniform(rng) < knobs[EVICT]
        if evict and knobs[SLIDE] > 0.0 and uniform(rng) < knobs[SLIDE]:
            depth = int(knobs[DEPTH])
            shift = knobs[SHIFT]
            changes, cost, nq = _slide(
                u, x, p, y, placed, counters, buf, stamp, changes, cost, depth, shift
            )
        elif evict:
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
                # By the pieces that live together, not the blocks' hulls: a sequence's
                # members with their own lifetimes meet only what lives with each.
                a = x + p.mine_off[k]
                b = y[j] + p.other_off[k]
                if b < a + p.mine_size[k] + reach and a - reach < b + p.other_size[k]:
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
        ranked = np.argsort(keys[:nq], kind="mergesort")
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
                best_y[:nblocks] = y[:nblocks]
                best_placed[:nblocks] = placed[:nblocks]
        else:
            for t in range(changes - 1, -1, -1):
                j = buf.log[3 * t]
                y[j] = buf.log[3 * t + 1]
                placed[j] = buf.log[3 * t + 2] == 1
