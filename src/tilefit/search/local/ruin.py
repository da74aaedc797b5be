"""The moves of ruin and recreate, on the flat tables of ``tilefit.search.local.meets``.

Written in the subset of Python that numba compiles (see ``tilefit.search.kernel.jit``),
so that the compiled and the plain paths agree exactly: random numbers come
from a Park-Miller generator held in a one-element array, not from numpy.

A placement here is partial and always valid: ``placed[j]`` blocks stand at
``y[j]``, and no two of them collide (pieces living together overlapping, or
conflict sides sharing a memory element). Three questions are asked of it:

- ``free_runs``: where may block i stand? Every placed piece living with one
  of its pieces forbids an interval of bases, every placed conflict partner
  another; what its valid bases keep outside them is returned as aligned runs.
- ``cheapest_base``: where would block i displace least? The area it would
  overlap (bytes x shared steps), plus the area of every partner it would
  share an element with, is piecewise linear in the base between the points
  where some pair starts or stops touching; it is least at one of them.
- ``displaced``: which placed blocks does block i at a given base collide with?
"""

from __future__ import annotations

from typing import Any

from tilefit.search.kernel.jit import jit
from tilefit.search.kernel.place import element_of
from tilefit.search.kernel.sorting import argsort

MODULUS = 2147483647  # Park-Miller: x <- x * 48271 mod (2^31 - 1); products stay below 2^47


@jit
def draw(rng: Any) -> int:
    rng[0] = rng[0] * 48271 % MODULUS
    return int(rng[0])


@jit
def below(rng: Any, k: int) -> int:
    """A number in [0, k), k >= 1."""
    return draw(rng) % k


@jit
def uniform(rng: Any) -> float:
    """A number in (0, 1)."""
    return draw(rng) / MODULUS


@jit
def up(x: int, r: int, m: int) -> int:
    """The least base >= x with base % m == r."""
    return x + (r - x) % m


@jit
def down(x: int, r: int, m: int) -> int:
    """The greatest base <= x with base % m == r."""
    return x - (x - r) % m


@jit
def conflict_span(p: Any, k: int, at: int) -> tuple[int, int]:
    """Bases of side k's block whose side would share an element with its partner at ``at``
    (the partner's block base): a closed interval."""
    b = at + p.c_other_off[k]
    first = element_of(p.elem, b)
    last = element_of(p.elem, b + p.c_other_size[k] - 1)
    return p.elem[first] - p.c_off[k] - p.c_size[k] + 1, p.elem[last + 1] - p.c_off[k] - 1


@jit
def free_runs(
    i: int, p: Any, y: Any, placed: Any, flo: Any, fhi: Any, runs_lo: Any, runs_hi: Any
) -> int:
    """Aligned runs [runs_lo[k], runs_hi[k]] of bases where block i collides with nothing
    placed, ascending; returns their count."""
    m = 0
    for k in range(p.ptr[i], p.ptr[i + 1]):
        j = p.other[k]
        if placed[j]:
            q = y[j] + p.other_off[k]
            flo[m] = q - p.mine_off[k] - p.mine_size[k] + 1
            fhi[m] = q + p.other_size[k] - p.mine_off[k] - 1
            m += 1
    for k in range(p.cptr[i], p.cptr[i + 1]):
        j = p.c_other[k]
        if placed[j]:
            flo[m], fhi[m] = conflict_span(p, k, y[j])
            m += 1
    order = argsort(flo, m)
    # The forbidden intervals, merged into disjoint ascending ones (in place, at the front).
    count = 0
    for t in range(m):
        lo = flo[order[t]]
        hi = fhi[order[t]]
        if count and lo <= runs_hi[count - 1] + 1:
            runs_hi[count - 1] = max(runs_hi[count - 1], hi)
        else:
            runs_lo[count] = lo
            runs_hi[count] = hi
            count += 1
    for t in range(count):
        flo[t] = runs_lo[t]
        fhi[t] = runs_hi[t]
    r = p.res[i]
    md = p.mod[i]
    n = 0
    first = 0
    for d in range(p.dptr[i], p.dptr[i + 1]):
        a = p.dlo[d]
        hi = p.dhi[d]
        while first < count and fhi[first] < a:
            first += 1
        t = first
        while a <= hi:
            if t < count and flo[t] <= a:
                a = fhi[t] + 1
                t += 1
                continue
            b = hi if t >= count else min(hi, flo[t] - 1)
            lo_run = up(a, r, md)
            hi_run = down(b, r, md)
            if lo_run <= hi_run:
                runs_lo[n] = lo_run
                runs_hi[n] = hi_run
                n += 1
            a = b + 1
    return n


@jit
def cheapest_base(
    i: int,
    p: Any,
    y: Any,
    placed: Any,
    rng: Any,
    pos: Any,
    slope: Any,
    jump: Any,
    cand: Any,
    whole: bool,
) -> int:
    """A valid base of block i displacing the least placed area (ties drawn), or -1 if none.
    The area is what it overlaps, or with ``whole`` the whole area of every block it touches
    (a block touched by several of its pieces counts once per piece pair)."""
    m = 0
    for k in range(p.ptr[i], p.ptr[i + 1]):
        j = p.other[k]
        if not placed[j]:
            continue
        # Overlap of [x + a, x + a + s) with [q, q + t) rises from x = q - a - s,
        # is flat from there + min(s, t) to q + t - a - min(s, t), and is gone at q + t - a.
        q = y[j] + p.other_off[k]
        s = p.mine_size[k]
        short = min(s, p.other_size[k])
        w = p.steps[k]
        rise = q - p.mine_off[k] - s
        gone = q + p.other_size[k] - p.mine_off[k]
        if whole:  # touching from rise + 1 to gone - 1
            pos[m], slope[m], jump[m] = rise + 1, 0, p.area[j]
            pos[m + 1], slope[m + 1], jump[m + 1] = gone, 0, -p.area[j]
            m += 2
            continue
        pos[m], slope[m], jump[m] = rise, w, 0
        pos[m + 1], slope[m + 1], jump[m + 1] = rise + short, -w, 0
        pos[m + 2], slope[m + 2], jump[m + 2] = gone - short, -w, 0
        pos[m + 3], slope[m + 3], jump[m + 3] = gone, w, 0
        m += 4
    for k in range(p.cptr[i], p.cptr[i + 1]):
        j = p.c_other[k]
        if not placed[j]:
            continue
        lo, hi = conflict_span(p, k, y[j])
        pos[m], slope[m], jump[m] = lo, 0, p.area[j]
        pos[m + 1], slope[m + 1], jump[m + 1] = hi + 1, 0, -p.area[j]
        m += 2
    order = argsort(pos, m)
    r = p.res[i]
    md = p.mod[i]
    # Candidates: the ends of each run of valid bases, and the aligned bases on either side
    # of every point where the slope rises or the cost jumps. Between two of those the cost
    # only bends downwards (concave), so it is least at one of their candidates.
    nc = 0
    for d in range(p.dptr[i], p.dptr[i + 1]):
        lo = up(p.dlo[d], r, md)
        hi = down(p.dhi[d], r, md)
        if lo > hi:
            continue
        cand[nc] = lo
        cand[nc + 1] = hi
        nc += 2
        for t in range(m):
            e = order[t]
            if slope[e] < 0 or pos[e] < lo or pos[e] > hi:
                continue
            above = up(pos[e], r, md)
            beneath = down(pos[e] - 1, r, md)
            if above <= hi:
                cand[nc] = above
                nc += 1
            if lo <= beneath <= hi:
                cand[nc] = beneath
                nc += 1
    if nc == 0:
        return -1
    points = argsort(cand, nc)  # the candidates cand[points[c]], ascending
    value = 0
    rate = 0
    x = cand[points[0]]
    t = 0
    best = -1
    best_value = 0
    ties = 0
    for c in range(nc):
        at = cand[points[c]]
        if c and at == cand[points[c - 1]]:
            continue
        while t < m and pos[order[t]] <= at:
            e = order[t]
            if pos[e] > x:
                value += rate * (pos[e] - x)
                x = pos[e]
            rate += slope[e]
            value += jump[e] + slope[e] * (x - pos[e])
            t += 1
        value += rate * (at - x)
        x = at
        if best < 0 or value < best_value:
            best, best_value, ties = at, value, 1
        elif value == best_value:
            ties += 1
            if below(rng, ties) == 0:
                best = at
    return best


@jit
def displaced(i: int, x: int, p: Any, y: Any, placed: Any, mark: Any, stamp: int, out: Any) -> int:
    """The placed blocks that block i at base x collides with, into ``out``; their count.
    ``mark[j] == stamp`` flags those found (the caller draws a fresh stamp each time)."""
    n = 0
    for k in range(p.ptr[i], p.ptr[i + 1]):
        j = p.other[k]
        if not placed[j] or mark[j] == stamp:
            continue
        a = x + p.mine_off[k]
        b = y[j] + p.other_off[k]
        if a < b + p.other_size[k] and b < a + p.mine_size[k]:
            mark[j] = stamp
            out[n] = j
            n += 1
    for k in range(p.cptr[i], p.cptr[i + 1]):
        j = p.c_other[k]
        if not placed[j] or mark[j] == stamp:
            continue
        lo, hi = conflict_span(p, k, y[j])
        if lo <= x <= hi:
            mark[j] = stamp
            out[n] = j
            n += 1
    return n
