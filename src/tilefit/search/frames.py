"""The search tree's frames: candidate lists, dominance heights, parts split off.

Kernel code (see ``tilefit.search.kernel``): flat arrays and scalar loops only.
"""

from __future__ import annotations

from typing import Any

from tilefit.search.jit import jit
from tilefit.search.place import element_of, section_limit
from tilefit.search.state import (
    C_CAND,
    C_FRAMES,
    C_PEND,
    C_TRAIL,
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
    F_SPLIT,
    FOUND,
    INF,
    NF,
    NP,
    RUNNING,
    T_RANK,
)


@jit
def descend(
    fb: int,
    c: int,
    lo: int,
    hi: int,
    frames: Any,
    cand: Any,
    pend: Any,
    cnt: Any,
    m: int,
    s0: Any,
    s1: Any,
    off: Any,
    low: Any,
    rank: Any,
    size: Any,
    elem: Any,
    cuts: Any,
    pt_ptr: Any,
    pt_idx: Any,
    pt_edge: Any,
    edge_lo: Any,
    edge_hi: Any,
    cutp: Any,
    total: Any,
    rg_ptr: Any,
    rg_lo: Any,
    rg_hi: Any,
    rg_suf: Any,
    width: Any,
    keyorder: Any,
    tmp: Any,
    tr_kind: Any,
    tr_idx: Any,
    tr_val: Any,
) -> int:
    """Open the node below frame fb after c was placed: one child, or independent parts."""
    x = off[c]
    ncut = 0
    for j in range(s0[c] + 1, s1[c]):
        if lo < j < hi and cuts[j] == 0:
            cutp[ncut] = j
            ncut += 1
    for p in range(pt_ptr[c], pt_ptr[c + 1]):
        if off[pt_idx[p]] >= 0:
            continue
        e = pt_edge[p]
        for j in range(edge_lo[e] + 1, edge_hi[e]):
            if lo < j < hi and cuts[j] == 0:
                cutp[ncut] = j
                ncut += 1
    cs = frames[fb + F_CS]
    ce = frames[fb + F_CE]
    if ncut > 0:
        # Sort and deduplicate the cut points, then keep the parts that hold blocks.
        for i in range(1, ncut):
            v = cutp[i]
            j = i - 1
            while j >= 0 and cutp[j] > v:
                cutp[j + 1] = cutp[j]
                j -= 1
            cutp[j + 1] = v
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
                push_part(
                    pend, cnt, cutp[ncut + 2 * q], cutp[ncut + 2 * q + 1], fb // NF, x, rank[c]
                )
            return open_parts(
                frames,
                cand,
                pend,
                cnt,
                m,
                s0,
                s1,
                off,
                low,
                rank,
                size,
                elem,
                pt_ptr,
                pt_idx,
                total,
                rg_ptr,
                rg_lo,
                rg_hi,
                rg_suf,
                width,
                keyorder,
                tmp,
                tr_kind,
                tr_idx,
                tr_val,
            )
    ns = cnt[C_CAND]
    ne = ns
    for i in range(cs, ce):
        v = cand[i]
        if off[v] < 0:
            cand[ne] = v
            ne += 1
    if ne == ns:
        # This part is complete: go on with the next pending one.
        return open_parts(
            frames,
            cand,
            pend,
            cnt,
            m,
            s0,
            s1,
            off,
            low,
            rank,
            size,
            elem,
            pt_ptr,
            pt_idx,
            total,
            rg_ptr,
            rg_lo,
            rg_hi,
            rg_suf,
            width,
            keyorder,
            tmp,
            tr_kind,
            tr_idx,
            tr_val,
        )
    _sort_candidates(cand, ns, ne, low, rank)
    minh = _min_height(cand, ns, ne, low, size, elem, pt_ptr, pt_idx, off)
    limit = section_limit(lo, hi, total, rg_ptr, rg_lo, rg_hi, rg_suf)
    if limit < minh:
        minh = limit
    _new_frame(frames, cnt, lo, hi, x, rank[c], ns, ne, 0, -1, minh)
    return RUNNING


@jit
def _part_has(cand: Any, cs: int, ce: int, a: int, b: int, s0: Any, s1: Any, off: Any) -> bool:
    for i in range(cs, ce):
        v = cand[i]
        if off[v] < 0 and s0[v] >= a and s1[v] <= b:
            return True
    return False


@jit
def has_block(a: int, b: int, m: int, s0: Any, s1: Any, off: Any) -> bool:
    for v in range(m):  # noqa: SIM110 (numba compiles loops, not generators)
        if off[v] < 0 and s0[v] >= a and s1[v] <= b:
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
def open_parts(
    frames: Any,
    cand: Any,
    pend: Any,
    cnt: Any,
    m: int,
    s0: Any,
    s1: Any,
    off: Any,
    low: Any,
    rank: Any,
    size: Any,
    elem: Any,
    pt_ptr: Any,
    pt_idx: Any,
    total: Any,
    rg_ptr: Any,
    rg_lo: Any,
    rg_hi: Any,
    rg_suf: Any,
    width: Any,
    keyorder: Any,
    tmp: Any,
    tr_kind: Any,
    tr_idx: Any,
    tr_val: Any,
) -> int:
    """Open the next pending part as a new frame; FOUND when none is left."""
    while cnt[C_PEND] > 0:
        cnt[C_PEND] -= 1
        pb = cnt[C_PEND] * NP
        a = pend[pb]
        b = pend[pb + 1]
        split = pend[pb + 2]
        cs = cnt[C_CAND]
        ce = cs
        if split < 0:
            for v in range(m):
                if off[v] < 0 and s0[v] >= a and s1[v] <= b:
                    cand[ce] = v
                    ce += 1
        else:
            sb = split * NF
            for i in range(frames[sb + F_CS], frames[sb + F_CE]):
                v = cand[i]
                if off[v] < 0 and s0[v] >= a and s1[v] <= b:
                    cand[ce] = v
                    ce += 1
        if ce == cs:
            continue
        fr = pend[pb + 4]
        if split >= 0:
            # A part split off during the search gets its own ordering, from the
            # totals left now (like a fresh problem); ranks are compared only
            # within a part, so its frontier rank starts over.
            _rerank(
                cand,
                cs,
                ce,
                s0,
                s1,
                size,
                total,
                width,
                keyorder,
                rank,
                tmp,
                tr_kind,
                tr_idx,
                tr_val,
                cnt,
            )
            fr = -1
        _sort_candidates(cand, cs, ce, low, rank)
        minh = _min_height(cand, cs, ce, low, size, elem, pt_ptr, pt_idx, off)
        limit = section_limit(a, b, total, rg_ptr, rg_lo, rg_hi, rg_suf)
        if limit < minh:
            minh = limit
        _new_frame(frames, cnt, a, b, pend[pb + 3], fr, cs, ce, 1, split, minh)
        return RUNNING
    return FOUND


@jit
def forced(c: int, ov_ptr: Any, ov_idx: Any, pt_ptr: Any, pt_idx: Any, off: Any) -> bool:
    """Whether block c meets no unplaced block in time or by conflict."""
    for p in range(ov_ptr[c], ov_ptr[c + 1]):
        if off[ov_idx[p]] < 0:
            return False
    for p in range(pt_ptr[c], pt_ptr[c + 1]):  # noqa: SIM110 (numba: no generators)
        if off[pt_idx[p]] < 0:
            return False
    return True


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
def _min_height(
    cand: Any,
    cs: int,
    ce: int,
    low: Any,
    size: Any,
    elem: Any,
    pt_ptr: Any,
    pt_idx: Any,
    off: Any,
) -> int:
    """Dominance height: no block goes at or above the lowest top a block could reach."""
    minh = INF
    for i in range(cs, ce):
        c = cand[i]
        h = low[c] + size[c]
        for p in range(pt_ptr[c], pt_ptr[c + 1]):
            if off[pt_idx[p]] < 0:
                # A later partner sits at or above the chosen offset, so c's
                # last element must end below it.
                h = elem[element_of(elem, h - 1) + 1]
                break
        if h < minh:
            minh = h
    return minh


@jit
def _new_frame(
    frames: Any,
    cnt: Any,
    lo: int,
    hi: int,
    f: int,
    fr: int,
    cs: int,
    ce: int,
    root: int,
    split: int,
    minh: int,
) -> None:
    fb = cnt[C_FRAMES] * NF
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
    cnt[C_FRAMES] += 1
    cnt[C_CAND] = ce


@jit
def _rerank(
    cand: Any,
    cs: int,
    ce: int,
    s0: Any,
    s1: Any,
    size: Any,
    total: Any,
    width: Any,
    keyorder: Any,
    rank: Any,
    tmp: Any,
    tr_kind: Any,
    tr_idx: Any,
    tr_val: Any,
    cnt: Any,
) -> None:
    """Rank the blocks of cand[cs:ce] by the ordering's keys (descending), then block index."""
    for i in range(cs, ce):
        v = cand[i]
        t = 0
        for s in range(s0[v], s1[v]):
            if total[s] > t:
                t = total[s]
        tmp[v] = t
    # Insertion sort of the blocks themselves, in place, by the keys.
    for i in range(cs + 1, ce):
        v = cand[i]
        j = i - 1
        while j >= cs and _ranks_before(v, cand[j], keyorder, width, size, tmp):
            cand[j + 1] = cand[j]
            j -= 1
        cand[j + 1] = v
    t = cnt[C_TRAIL]
    for i in range(cs, ce):
        v = cand[i]
        tr_kind[t] = T_RANK
        tr_idx[t] = v
        tr_val[t] = rank[v]
        t += 1
        rank[v] = i - cs
    cnt[C_TRAIL] = t


@jit
def _ranks_before(u: int, v: int, keyorder: Any, width: Any, size: Any, tkey: Any) -> bool:
    for q in range(len(keyorder)):
        code = keyorder[q]
        if code == 0:
            a = width[u]
            b = width[v]
        elif code == 1:
            a = width[u] * size[u]
            b = width[v] * size[v]
        else:
            a = tkey[u]
            b = tkey[v]
        if a != b:
            return bool(a > b)
    return u < v
