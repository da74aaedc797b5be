"""The search tree's frames: candidate lists, dominance heights, parts split off.

Kernel code (see ``tilefit.search.kernel.branch``): flat arrays and scalar loops only.
"""

from __future__ import annotations

from typing import Any

from tilefit.search.kernel.jit import jit
from tilefit.search.kernel.layout import (
    C_CAND,
    C_COPY,
    C_FRAMES,
    C_PEND,
    F_CE,
    F_CHOSEN,
    F_CS,
    F_FOFF,
    F_FRANK,
    F_HI,
    F_LO,
    F_MINH,
    F_PEND,
    F_PLEN,
    F_POS,
    F_ROOT,
    F_SHARED,
    F_SPLIT,
    FOUND,
    INF,
    NF,
    NP,
    RUNNING,
    Partners,
    Rows,
    State,
    Tables,
)
from tilefit.search.kernel.ordering import rerank
from tilefit.search.kernel.place import element_of, section_limit


@jit
def descend(fb: int, c: int, lo: int, hi: int, tb: Tables, st: State) -> int:
    """Open the node below frame fb after c was placed: one child, or independent parts."""
    # Fields read once, before the loops (see tilefit.search.kernel.layout).
    s0, s1, partners, edge_lo, edge_hi = tb.s0, tb.s1, tb.partners, tb.edge_lo, tb.edge_hi
    frames, cand, cuts, cutp, off = st.frames, st.cand, st.cuts, st.cutp, st.off
    x = off[c]
    # The boundaries inside [lo, hi) that c or its edges crossed and nothing
    # crosses now, ascending. Each edge's span holds c's, so together they
    # cross one run of boundaries: each is found once, and cutp stays short.
    first = s0[c]
    last = s1[c]
    for p in range(partners.ptr[c], partners.ptr[c + 1]):
        if off[partners.idx[p]] < 0:
            e = partners.edge[p]
            first = min(first, edge_lo[e])
            last = max(last, edge_hi[e])
    ncut = _freed(first, last, lo, hi, cuts, cutp, 0)
    cs = frames[fb + F_CS]
    ce = frames[fb + F_CE]
    if ncut > 0:
        # Keep the parts between the cut points that hold blocks.
        n = 0
        prev = lo
        for i in range(ncut + 1):
            b = hi if i == ncut else cutp[i]
            if b == prev:
                continue
            if _part_has(cand, cs, ce, prev, b, s0, s1, off):
                # store parts after the cut points: cutp[ncut + 2n], cutp[ncut + 2n + 1]
                cutp[ncut + 2 * n] = prev
                cutp[ncut + 2 * n + 1] = b
                n += 1
            prev = b
        if n > 1:
            for q in range(n - 1, -1, -1):
                k = ncut + 2 * q
                push_part(st.pend, st.cnt, cutp[k], cutp[k + 1], fb // NF, x, st.rank[c])
            return open_parts(tb, st)
    # The child's list: the unplaced blocks of this one, re-sorted. A copy above
    # it while cand stays short; else written over this list (safe: each block
    # moves down or stays), which the search rebuilds when it backs up here.
    ns = st.cnt[C_CAND]
    if ns + (ce - cs) > st.cnt[C_COPY]:
        ns = cs
    ne = ns
    for i in range(cs, ce):
        v = cand[i]
        if off[v] < 0:
            cand[ne] = v
            ne += 1
    if ne == ns:
        # This part is complete: go on with the next pending one.
        return open_parts(tb, st)
    frames[fb + F_SHARED] = 1 if ns == cs else 0
    _open_frame(lo, hi, x, st.rank[c], ns, ne, 0, -1, tb, st)
    return RUNNING


@jit
def restore(fb: int, c: int, cand: Any, frames: Any, low: Any, rank: Any) -> None:
    """Rebuild frame fb's list after its child's, built over it, was taken back.

    cand[cs:ce - 1] holds the child's blocks, which are this frame's but c;
    sorted again by (low, rank), a total order within a part (ranks are unique
    there), they fall exactly where they stood, so F_POS still points right.
    """
    cs = frames[fb + F_CS]
    ce = frames[fb + F_CE]
    cand[ce - 1] = c
    _sort_candidates(cand, cs, ce, low, rank)
    frames[fb + F_SHARED] = 0


@jit
def _freed(first: int, last: int, lo: int, hi: int, cuts: Any, cutp: Any, ncut: int) -> int:
    """Append to cutp[:ncut] the boundaries inside both (first, last) and (lo, hi)
    that nothing crosses; returns the new count."""
    for j in range(first + 1, last):
        if lo < j < hi and cuts[j] == 0:
            cutp[ncut] = j
            ncut += 1
    return ncut


@jit
def _inside(v: int, a: int, b: int, s0: Any, s1: Any, off: Any) -> bool:
    """Whether block v is unplaced and lives within sections [a, b)."""
    # & rather than `and`: without branches numba's reference counts cancel out
    return bool((off[v] < 0) & (s0[v] >= a) & (s1[v] <= b))


@jit
def _part_has(cand: Any, cs: int, ce: int, a: int, b: int, s0: Any, s1: Any, off: Any) -> bool:
    for i in range(cs, ce):  # noqa: SIM110 (numba compiles loops, not generators)
        if _inside(cand[i], a, b, s0, s1, off):
            return True
    return False


@jit
def has_block(a: int, b: int, s0: Any, s1: Any, off: Any) -> bool:
    for v in range(len(off)):  # noqa: SIM110 (numba compiles loops, not generators)
        if _inside(v, a, b, s0, s1, off):
            return True
    return False


@jit
def push_part(pend: Any, cnt: Any, a: int, b: int, split: int, f: int, fr: int) -> None:
    pb = cnt[C_PEND] * NP
    pend[pb] = a
    pend[pb + 1] = b
    pend[pb + 2] = split
    pend[pb + 3] = f
    pend[pb + 4] = fr
    cnt[C_PEND] += 1


@jit
def open_parts(tb: Tables, st: State) -> int:
    """Open the next pending part as a new frame; FOUND when none is left."""
    s0, s1 = tb.s0, tb.s1  # read once, before the loop (see tilefit.search.kernel.layout)
    cnt, cand, pend, off = st.cnt, st.cand, st.pend, st.off
    while cnt[C_PEND] > 0:
        cnt[C_PEND] -= 1
        pb = cnt[C_PEND] * NP
        a = pend[pb]
        b = pend[pb + 1]
        split = pend[pb + 2]
        cs = cnt[C_CAND]
        ce = cs
        if split < 0:
            for v in range(len(off)):
                if _inside(v, a, b, s0, s1, off):
                    cand[ce] = v
                    ce += 1
        else:
            sb = split * NF
            for i in range(st.frames[sb + F_CS], st.frames[sb + F_CE]):
                v = cand[i]
                if _inside(v, a, b, s0, s1, off):
                    cand[ce] = v
                    ce += 1
        if ce == cs:
            continue
        fr = pend[pb + 4]
        if split >= 0:
            # A part split off during the search gets its own ordering, from the
            # totals left now (like a fresh problem); ranks are compared only
            # within a part, so its frontier rank starts over.
            rerank(cs, ce, tb, st)
            fr = -1
        _open_frame(a, b, pend[pb + 3], fr, cs, ce, 1, split, tb, st)
        return RUNNING
    return FOUND


@jit
def forced(
    c: int, first: int, last: int, members: Rows, starts: Rows, partners: Partners, off: Any
) -> bool:
    """Whether block c, over sections [first, last), meets no unplaced block in
    time or by conflict (see ``place`` for the blocks living with c)."""
    for p in range(members.ptr[first], members.ptr[first + 1]):
        v = members.idx[p]
        if v != c and off[v] < 0:
            return False
    for p in range(starts.ptr[first + 1], starts.ptr[last]):
        if off[starts.idx[p]] < 0:
            return False
    for p in range(partners.ptr[c], partners.ptr[c + 1]):  # noqa: SIM110 (numba: no generators)
        if off[partners.idx[p]] < 0:
            return False
    return True


@jit
def _open_frame(
    lo: int,
    hi: int,
    f: int,
    fr: int,
    cs: int,
    ce: int,
    root: int,
    split: int,
    tb: Tables,
    st: State,
) -> None:
    """Push a frame over the candidates cand[cs:ce] of sections [lo, hi).

    (f, fr) is the frontier, root is 1 for a part's first frame, split the
    frame that split that part off (-1: none).
    """
    _sort_candidates(st.cand, cs, ce, st.low, st.rank)
    minh = INF
    if tb.dominance[0] == 1:
        minh = _min_height(cs, ce, tb, st)
    limit = section_limit(lo, hi, st.total, tb.regions)
    if limit < minh:
        minh = limit
    frames = st.frames
    fb = st.cnt[C_FRAMES] * NF
    frames[fb + F_LO] = lo
    frames[fb + F_HI] = hi
    frames[fb + F_FOFF] = f
    frames[fb + F_FRANK] = fr
    frames[fb + F_CS] = cs
    frames[fb + F_CE] = ce
    frames[fb + F_POS] = cs
    frames[fb + F_PLEN] = -1
    frames[fb + F_ROOT] = root
    frames[fb + F_SPLIT] = split
    frames[fb + F_PEND] = -1
    frames[fb + F_MINH] = minh
    frames[fb + F_CHOSEN] = -1
    frames[fb + F_SHARED] = 0
    st.cnt[C_FRAMES] += 1
    st.cnt[C_CAND] = ce


@jit
def _sort_candidates(cand: Any, cs: int, ce: int, low: Any, rank: Any) -> None:
    """Insertion sort by (low, rank): the parent's order is nearly right already."""
    for i in range(cs + 1, ce):
        c = cand[i]
        key = low[c]
        rk = rank[c]
        j = i - 1
        while j >= cs:
            d = cand[j]
            if low[d] < key or (low[d] == key and rank[d] < rk):
                break
            cand[j + 1] = d
            j -= 1
        cand[j + 1] = c


@jit
def _min_height(cs: int, ce: int, tb: Tables, st: State) -> int:
    """Dominance height: no block goes at or above the lowest top a block could reach."""
    size, elem, partners = tb.size, tb.elem, tb.partners
    cand, low, off = st.cand, st.low, st.off
    minh = INF
    for i in range(cs, ce):
        c = cand[i]
        h = low[c] + size[c]
        for p in range(partners.ptr[c], partners.ptr[c + 1]):
            if off[partners.idx[p]] < 0:
                # A later partner sits at or above the chosen offset, so c's
                # last element must end below it.
                h = elem[element_of(elem, h - 1) + 1]
                break
        if h < minh:
            minh = h
    return minh
