"""Placing one block and taking placements back: propagation and section inference.

Kernel code (see ``tilefit.search.kernel.branch``): flat arrays and scalar loops only.
"""

from __future__ import annotations

from typing import Any

from tilefit.search.kernel.jit import jit
from tilefit.search.kernel.layout import (
    C_PLACED,
    C_STAMP,
    C_STRETCH,
    C_TRAIL,
    INF,
    T_EDGE,
    T_FLOOR,
    T_LOW,
    T_RANK,
    Partners,
    Regions,
    Rows,
    State,
    Tables,
    Trail,
    ValidBases,
)


@jit
def element_of(elem: Any, address: int) -> int:
    """Index of the memory element holding ``address`` (elem ends with the memory size)."""
    lo = 0
    hi = len(elem) - 2
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if elem[mid] <= address:
            lo = mid
        else:
            hi = mid - 1
    return lo


@jit
def lowest_valid(
    v: int, start: int, bases: ValidBases, partners: Partners, elem: Any, off: Any
) -> int:
    """The lowest base >= start for block v: aligned, inside its valid bases, and
    touching no element that a placed conflict partner touches."""
    x = start
    r = bases.res[v]
    md = bases.mod[v]
    k = bases.ptr[v]
    kend = bases.ptr[v + 1]
    while True:
        x = x + (r - x) % md
        while k < kend and bases.hi[k] < x:
            k += 1
        if k == kend:
            return INF
        if x < bases.lo[k]:
            x = bases.lo[k]
            continue
        moved = False
        for p in range(partners.ptr[v], partners.ptr[v + 1]):
            w = partners.idx[p]
            if off[w] < 0:
                continue
            w0 = element_of(elem, off[w])
            w1 = element_of(elem, off[w] + partners.theirs[p] - 1)
            e0 = element_of(elem, x)
            e1 = element_of(elem, x + partners.mine[p] - 1)
            if e0 <= w1 and w0 <= e1:
                x = elem[w1 + 1]
                moved = True
                break
        if not moved:
            return int(x)


@jit
def space_above(s: int, lo: int, regions: Regions) -> int:
    """Bytes of section s's region at or above address lo."""
    k = regions.ptr[s]
    kend = regions.ptr[s + 1]
    while k < kend and regions.hi[k] <= lo:
        k += 1
    if k == kend:
        return 0
    if regions.lo[k] >= lo:
        return int(regions.suf[k])
    return int(regions.suf[k] - (lo - regions.lo[k]))


@jit
def record(trail: Trail, cnt: Any, kind: int, i: int, value: int) -> None:
    """Push (kind, index, old value) on the trail, for ``undo_to``."""
    t = cnt[C_TRAIL]
    trail.tag[t] = i * 4 + kind
    trail.val[t] = value
    cnt[C_TRAIL] = t + 1


@jit
def cross(cuts: Any, first: int, last: int, delta: int) -> None:
    """Count (delta 1) or uncount (-1), in the boundaries it crosses, a block or
    an edge over sections [first, last)."""
    for j in range(first + 1, last):
        cuts[j] += delta


@jit
def place(c: int, x: int, tb: Tables, st: State) -> bool:
    """Place block c at x and propagate; False when the node is infeasible.

    The placement is pushed on the placed stack even when it fails, so that
    ``undo_to`` always takes it back.
    """
    # Fields read once, before the loops (see tilefit.search.kernel.layout).
    size, s0, s1, elem = tb.size, tb.s0, tb.s1, tb.elem
    bases, members, starts, partners = tb.bases, tb.members, tb.starts, tb.partners
    cnt, off, low, floor, total, cuts = st.cnt, st.off, st.low, st.floor, st.total, st.cuts
    trail, edge_alive, aff = st.trail, st.edge_alive, st.aff
    pl = cnt[C_PLACED]
    st.placed[pl] = c
    st.placed_mark[pl] = cnt[C_TRAIL]
    cnt[C_PLACED] = pl + 1
    off[c] = x
    top = x + size[c]
    for s in range(s0[c], s1[c]):
        record(trail, cnt, T_FLOOR, s, floor[s])
        floor[s] = top
        total[s] -= size[c]
    cross(cuts, s0[c], s1[c], -1)
    cnt[C_STAMP] += 1
    stamp = cnt[C_STAMP]
    naff = 0
    ok = True
    # Blocks living with c now start above it: those alive in c's first section
    # (c among them, placed), then those starting during c's lifetime. The
    # order does not matter: each new low depends only on the placed blocks.
    # The two loops stay written out: one helper for both (returning the count,
    # or a pair with a flag) made the whole search 40-60% slower under numba.
    first = s0[c]
    for p in range(members.ptr[first], members.ptr[first + 1]):
        v = members.idx[p]
        if off[v] >= 0 or low[v] >= top:
            continue
        nl = lowest_valid(v, top, bases, partners, elem, off)
        naff = _lift(v, nl, stamp, naff, tb, st)
        if nl >= INF:
            ok = False
            break
    if ok:
        for p in range(starts.ptr[first + 1], starts.ptr[s1[c]]):
            v = starts.idx[p]
            if off[v] >= 0 or low[v] >= top:
                continue
            nl = lowest_valid(v, top, bases, partners, elem, off)
            naff = _lift(v, nl, stamp, naff, tb, st)
            if nl >= INF:
                ok = False
                break
    # Conflict partners now avoid c's elements; their edges no longer bind.
    if ok:
        for p in range(partners.ptr[c], partners.ptr[c + 1]):
            v = partners.idx[p]
            if off[v] >= 0:
                continue
            e = partners.edge[p]
            if edge_alive[e] == 1:
                edge_alive[e] = 0
                record(trail, cnt, T_EDGE, e, 0)
                cross(cuts, tb.edge_lo[e], tb.edge_hi[e], -1)
            nl = lowest_valid(v, low[v], bases, partners, elem, off)
            if nl == low[v]:
                continue
            naff = _lift(v, nl, stamp, naff, tb, st)
            if nl >= INF:
                ok = False
                break
    # Cheap first: sections that fail even before their floors are lifted.
    if ok:
        ok = _sections_fit(c, x, naff, tb, st)
    # A section's floor is at least the lowest start of the blocks still to come there.
    if ok:
        for i in range(naff):
            s = aff[i]
            if total[s] == 0:
                continue
            mn = INF
            for q in range(members.ptr[s], members.ptr[s + 1]):
                v = members.idx[q]
                if off[v] < 0 and low[v] < mn:
                    mn = low[v]
            if mn < INF and floor[s] < mn:
                record(trail, cnt, T_FLOOR, s, floor[s])
                floor[s] = mn
    # Section inference where floors rose: what is left must fit above the
    # floor (and above x), and into the stretches there that can hold it.
    # Elsewhere the frame's height limit has checked the bytes.
    if ok:
        ok = _sections_fit(c, x, naff, tb, st)
    if ok and len(tb.stretch) > 0:  # empty where the bound is off
        ok = _stretches_pass(c, x, naff, tb, st)
    return ok


@jit
def _lift(v: int, nl: int, stamp: int, naff: int, tb: Tables, st: State) -> int:
    """Raise block v's low to nl; note (in aff) the sections whose floor it may lift.

    Returns the new count of noted sections.
    """
    low, floor, mark, aff = st.low, st.floor, st.mark, st.aff
    record(st.trail, st.cnt, T_LOW, v, low[v])
    low[v] = nl
    if nl >= INF:
        return naff
    for s in range(tb.s0[v], tb.s1[v]):
        # Only a floor below v's new low can rise to the section's least low.
        if mark[s] != stamp and floor[s] < nl:
            mark[s] = stamp
            aff[naff] = s
            naff += 1
    return naff


@jit
def _sections_fit(c: int, x: int, naff: int, tb: Tables, st: State) -> bool:
    """Whether section inference passes in c's sections and the noted ones."""
    floor, total, aff, regions = st.floor, st.total, st.aff, tb.regions
    for s in range(tb.s0[c], tb.s1[c]):
        if not fits_above(s, x, floor, total, regions):
            return False
    for i in range(naff):  # noqa: SIM110 (numba compiles loops, not generators)
        if not fits_above(aff[i], x, floor, total, regions):
            return False
    return True


@jit
def _stretches_pass(c: int, x: int, naff: int, tb: Tables, st: State) -> bool:
    """Whether the stretch bound passes in c's sections and the noted ones, where
    ``tb.stretch`` asks for it (a function apart, so that a search with the bound off
    runs section inference as fast as before it)."""
    floor, total, aff, regions = st.floor, st.total, st.aff, tb.regions
    stretch, waste, size, off, longest, bysize = (
        tb.stretch,
        tb.waste,
        tb.size,
        st.off,
        tb.longest,
        tb.bysize,
    )
    first = tb.s0[c]
    n = tb.s1[c] - first
    for i in range(n + naff):
        s = first + i if i < n else aff[i - n]
        if stretch[s] == 0:
            continue
        fl = max(floor[s], x)
        if not _stretch_passes(s, fl, total, waste, size, off, regions, longest, bysize):
            st.cnt[C_STRETCH] += 1
            return False
    return True


@jit
def _stretch_passes(
    s: int,
    fl: int,
    total: Any,
    waste: Any,
    size: Any,
    off: Any,
    regions: Regions,
    longest: Any,
    bysize: Rows,
) -> bool:
    """The stretch bound in section s above fl, skipped where it cannot fail: when the
    bytes above fl, less every stretch shorter than the section's largest block
    (``waste``) and the stretch fl cuts, still hold the blocks left, every length
    L below the largest block left has at least that much room in the stretches
    longer than L (and above it no block needs room)."""
    k = regions.ptr[s]
    kend = regions.ptr[s + 1]
    while k < kend and regions.hi[k] <= fl:
        k += 1
    if k == kend:
        return bool(total[s] == 0)
    space = regions.suf[k]
    clipped = 0
    if regions.lo[k] < fl:
        space -= fl - regions.lo[k]
        clipped = regions.hi[k] - fl
    if total[s] + waste[s] + clipped <= space:
        return True
    return stretches_fit(s, fl, size, off, regions, longest, bysize)


@jit
def stretches_fit(
    s: int, fl: int, size: Any, off: Any, regions: Regions, longest: Any, bysize: Rows
) -> bool:
    """The stretch bound: whether section s's unplaced blocks can fit into the stretches
    of its region at or above fl (its intervals, maximal runs of free addresses).

    Every unplaced block alive in s lies at or above fl, inside s's region, wholly
    inside one stretch (it cannot straddle a gap or a pinned piece), apart from the
    others. So for any length L, the blocks larger than L lie in the stretches longer
    than L, and their bytes fit in those stretches' bytes. Checked at L = each
    stretch's length, longest first (the sums change only there); at the longest
    stretch shorter than the smallest block it says that the stretches too short
    for every block are wasted. One pass over the stretches, longest first
    (``longest``), and the blocks, largest first (``bysize``).
    """
    kfirst = regions.ptr[s]
    kend = regions.ptr[s + 1]
    # The stretch holding fl counts from fl only: its length joins the others apart.
    clipped = -1
    k = kfirst
    while k < kend and regions.hi[k] <= fl:
        k += 1
    if k < kend and regions.lo[k] < fl:
        clipped = regions.hi[k] - fl
    q = bysize.ptr[s]
    qend = bysize.ptr[s + 1]
    room = 0
    big = 0
    i = kfirst
    while True:
        # The next stretch length, longest first: the ones wholly at or above fl in
        # their order, with the clipped one merged in.
        while i < kend and regions.lo[longest[i]] < fl:
            i += 1
        length = -1
        if i < kend:
            length = regions.hi[longest[i]] - regions.lo[longest[i]]
        if clipped > length:
            length = clipped
            clipped = -1
        elif length >= 0:
            i += 1
        else:
            length = 0  # past every stretch: the bytes above fl must hold every block
        while q < qend:
            v = bysize.idx[q]
            if off[v] < 0:
                if size[v] <= length:
                    break
                big += size[v]
            q += 1
        if big > room:
            return False
        if q == qend:
            return True  # every block counted: later lengths only add room
        room += length
        if length == 0:
            return True


@jit
def fits_above(s: int, x: int, floor: Any, total: Any, regions: Regions) -> bool:
    need = total[s]
    if need == 0:
        return True
    fl = floor[s] if floor[s] > x else x
    return bool(need <= space_above(s, fl, regions))


@jit
def section_limit(lo: int, hi: int, total: Any, regions: Regions) -> int:
    """The lowest offset at which placing any block fails section inference.

    If section s's unplaced total no longer fits at or above x, it does not at
    any higher x either, and a block placed at x' >= x inside s leaves its own
    bytes in s's region: so every candidate at or above this limit fails.
    """
    limit = INF
    for s in range(lo, hi):
        need = total[s]
        if need == 0:
            continue
        # The highest lo with at least `need` bytes of the region at or above it.
        k = regions.ptr[s + 1] - 1
        kfirst = regions.ptr[s]
        while k >= kfirst and regions.suf[k] < need:
            k -= 1
        if k < kfirst:
            return 0
        after = regions.suf[k] - (regions.hi[k] - regions.lo[k])
        highest = regions.hi[k] - (need - after)
        if highest + 1 < limit:
            limit = highest + 1
    return limit


@jit
def undo_to(h: int, tb: Tables, st: State) -> None:
    """Take back every placement above placed-stack height h, newest first."""
    # Fields read once, before the loops (see tilefit.search.kernel.layout).
    size, s0, s1, edge_lo, edge_hi = tb.size, tb.s0, tb.s1, tb.edge_lo, tb.edge_hi
    cnt, trail, low, floor, rank, cuts = st.cnt, st.trail, st.low, st.floor, st.rank, st.cuts
    while cnt[C_PLACED] > h:
        pl = cnt[C_PLACED] - 1
        c = st.placed[pl]
        t = cnt[C_TRAIL]
        mk = st.placed_mark[pl]
        while t > mk:
            t -= 1
            tag = trail.tag[t]
            kind = tag & 3
            i = tag >> 2
            if kind == T_LOW:
                low[i] = trail.val[t]
            elif kind == T_FLOOR:
                floor[i] = trail.val[t]
            elif kind == T_RANK:
                rank[i] = trail.val[t]
            else:
                st.edge_alive[i] = 1
                cross(cuts, edge_lo[i], edge_hi[i], 1)
        cnt[C_TRAIL] = t
        for s in range(s0[c], s1[c]):
            st.total[s] += size[c]
        cross(cuts, s0[c], s1[c], 1)
        st.off[c] = -1
        cnt[C_PLACED] = pl
