"""Placing one block and taking placements back: propagation and section inference.

Kernel code (see ``tilefit.search.kernel``): flat arrays and scalar loops only.
"""

from __future__ import annotations

from typing import Any

from tilefit.search.jit import jit
from tilefit.search.state import (
    C_PLACED,
    C_STAMP,
    C_TRAIL,
    INF,
    T_EDGE,
    T_FLOOR,
    T_LOW,
    T_RANK,
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
    v: int,
    start: int,
    res: Any,
    mod: Any,
    bi_ptr: Any,
    bi_lo: Any,
    bi_hi: Any,
    pt_ptr: Any,
    pt_idx: Any,
    pt_len: Any,
    pt_olen: Any,
    elem: Any,
    off: Any,
) -> int:
    """The lowest base >= start for block v: aligned, inside its valid bases, and
    touching no element that a placed conflict partner touches."""
    x = start
    r = res[v]
    md = mod[v]
    k = bi_ptr[v]
    kend = bi_ptr[v + 1]
    while True:
        x = x + (r - x) % md
        while k < kend and bi_hi[k] < x:
            k += 1
        if k == kend:
            return INF
        if x < bi_lo[k]:
            x = bi_lo[k]
            continue
        moved = False
        for p in range(pt_ptr[v], pt_ptr[v + 1]):
            w = pt_idx[p]
            if off[w] < 0:
                continue
            w0 = element_of(elem, off[w])
            w1 = element_of(elem, off[w] + pt_olen[p] - 1)
            e0 = element_of(elem, x)
            e1 = element_of(elem, x + pt_len[p] - 1)
            if e0 <= w1 and w0 <= e1:
                x = elem[w1 + 1]
                moved = True
                break
        if not moved:
            return int(x)


@jit
def space_above(s: int, lo: int, rg_ptr: Any, rg_lo: Any, rg_hi: Any, rg_suf: Any) -> int:
    """Bytes of section s's region at or above address lo."""
    k = rg_ptr[s]
    kend = rg_ptr[s + 1]
    while k < kend and rg_hi[k] <= lo:
        k += 1
    if k == kend:
        return 0
    if rg_lo[k] >= lo:
        return int(rg_suf[k])
    return int(rg_suf[k] - (lo - rg_lo[k]))


@jit
def place(
    c: int,
    x: int,
    lo: int,
    hi: int,
    size: Any,
    s0: Any,
    s1: Any,
    ov_ptr: Any,
    ov_idx: Any,
    sec_ptr: Any,
    sec_idx: Any,
    res: Any,
    mod: Any,
    bi_ptr: Any,
    bi_lo: Any,
    bi_hi: Any,
    pt_ptr: Any,
    pt_idx: Any,
    pt_len: Any,
    pt_olen: Any,
    pt_edge: Any,
    edge_lo: Any,
    edge_hi: Any,
    elem: Any,
    rg_ptr: Any,
    rg_lo: Any,
    rg_hi: Any,
    rg_suf: Any,
    off: Any,
    low: Any,
    floor: Any,
    total: Any,
    cuts: Any,
    edge_alive: Any,
    tr_kind: Any,
    tr_idx: Any,
    tr_val: Any,
    placed: Any,
    placed_mark: Any,
    cnt: Any,
    mark: Any,
    aff: Any,
) -> bool:
    """Place block c at x and propagate; False when the node is infeasible.

    The placement is pushed on the placed stack even when it fails, so that
    ``_undo_to`` always takes it back.
    """
    pl = cnt[C_PLACED]
    placed[pl] = c
    placed_mark[pl] = cnt[C_TRAIL]
    cnt[C_PLACED] = pl + 1
    off[c] = x
    top = x + size[c]
    t = cnt[C_TRAIL]
    for s in range(s0[c], s1[c]):
        tr_kind[t] = T_FLOOR
        tr_idx[t] = s
        tr_val[t] = floor[s]
        t += 1
        floor[s] = top
        total[s] -= size[c]
    for j in range(s0[c] + 1, s1[c]):
        cuts[j] -= 1
    cnt[C_STAMP] += 1
    stamp = cnt[C_STAMP]
    naff = 0
    ok = True
    # Blocks living with c now start above it.
    for p in range(ov_ptr[c], ov_ptr[c + 1]):
        v = ov_idx[p]
        if off[v] >= 0 or low[v] >= top:
            continue
        nl = lowest_valid(
            v, top, res, mod, bi_ptr, bi_lo, bi_hi, pt_ptr, pt_idx, pt_len, pt_olen, elem, off
        )
        tr_kind[t] = T_LOW
        tr_idx[t] = v
        tr_val[t] = low[v]
        t += 1
        low[v] = nl
        if nl >= INF:
            ok = False
            break
        for s in range(s0[v], s1[v]):
            # Only a floor below v's new low can rise to the section's least low.
            if mark[s] != stamp and floor[s] < low[v]:
                mark[s] = stamp
                aff[naff] = s
                naff += 1
    # Conflict partners now avoid c's elements; their edges no longer bind.
    if ok:
        for p in range(pt_ptr[c], pt_ptr[c + 1]):
            v = pt_idx[p]
            if off[v] >= 0:
                continue
            e = pt_edge[p]
            if edge_alive[e] == 1:
                edge_alive[e] = 0
                tr_kind[t] = T_EDGE
                tr_idx[t] = e
                tr_val[t] = 0
                t += 1
                for j in range(edge_lo[e] + 1, edge_hi[e]):
                    cuts[j] -= 1
            nl = lowest_valid(
                v,
                low[v],
                res,
                mod,
                bi_ptr,
                bi_lo,
                bi_hi,
                pt_ptr,
                pt_idx,
                pt_len,
                pt_olen,
                elem,
                off,
            )
            if nl == low[v]:
                continue
            tr_kind[t] = T_LOW
            tr_idx[t] = v
            tr_val[t] = low[v]
            t += 1
            low[v] = nl
            if nl >= INF:
                ok = False
                break
            for s in range(s0[v], s1[v]):
                if mark[s] != stamp and floor[s] < low[v]:
                    mark[s] = stamp
                    aff[naff] = s
                    naff += 1
    # Cheap first: sections that fail even before their floors are lifted.
    if ok:
        for s in range(s0[c], s1[c]):
            if not fits_above(s, x, floor, total, rg_ptr, rg_lo, rg_hi, rg_suf):
                ok = False
                break
    if ok:
        for i in range(naff):
            if not fits_above(aff[i], x, floor, total, rg_ptr, rg_lo, rg_hi, rg_suf):
                ok = False
                break
    # A section's floor is at least the lowest start of the blocks still to come there.
    if ok:
        for i in range(naff):
            s = aff[i]
            if total[s] == 0:
                continue
            mn = INF
            for q in range(sec_ptr[s], sec_ptr[s + 1]):
                v = sec_idx[q]
                if off[v] < 0 and low[v] < mn:
                    mn = low[v]
            if mn < INF and floor[s] < mn:
                tr_kind[t] = T_FLOOR
                tr_idx[t] = s
                tr_val[t] = floor[s]
                t += 1
                floor[s] = mn
    cnt[C_TRAIL] = t
    # Section inference where floors rose: what is left must fit above the
    # floor (and above x). Elsewhere the frame's height limit has checked it.
    if ok:
        for s in range(s0[c], s1[c]):
            if not fits_above(s, x, floor, total, rg_ptr, rg_lo, rg_hi, rg_suf):
                return False
        for i in range(naff):
            if not fits_above(aff[i], x, floor, total, rg_ptr, rg_lo, rg_hi, rg_suf):
                return False
    return ok


@jit
def fits_above(
    s: int, x: int, floor: Any, total: Any, rg_ptr: Any, rg_lo: Any, rg_hi: Any, rg_suf: Any
) -> bool:
    need = total[s]
    if need == 0:
        return True
    fl = floor[s] if floor[s] > x else x
    return bool(need <= space_above(s, fl, rg_ptr, rg_lo, rg_hi, rg_suf))


@jit
def section_limit(
    lo: int, hi: int, total: Any, rg_ptr: Any, rg_lo: Any, rg_hi: Any, rg_suf: Any
) -> int:
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
        k = rg_ptr[s + 1] - 1
        kfirst = rg_ptr[s]
        while k >= kfirst and rg_suf[k] < need:
            k -= 1
        if k < kfirst:
            return 0
        after = rg_suf[k] - (rg_hi[k] - rg_lo[k])
        highest = rg_hi[k] - (need - after)
        if highest + 1 < limit:
            limit = highest + 1
    return limit


@jit
def undo_to(
    h: int,
    size: Any,
    s0: Any,
    s1: Any,
    low: Any,
    rank: Any,
    floor: Any,
    total: Any,
    cuts: Any,
    edge_alive: Any,
    edge_lo: Any,
    edge_hi: Any,
    off: Any,
    tr_kind: Any,
    tr_idx: Any,
    tr_val: Any,
    placed: Any,
    placed_mark: Any,
    cnt: Any,
) -> None:
    """Take back every placement above placed-stack height h, newest first."""
    while cnt[C_PLACED] > h:
        pl = cnt[C_PLACED] - 1
        c = placed[pl]
        t = cnt[C_TRAIL]
        mk = placed_mark[pl]
        while t > mk:
            t -= 1
            kind = tr_kind[t]
            i = tr_idx[t]
            if kind == T_LOW:
                low[i] = tr_val[t]
            elif kind == T_FLOOR:
                floor[i] = tr_val[t]
            elif kind == T_RANK:
                rank[i] = tr_val[t]
            else:
                edge_alive[i] = 1
                for j in range(edge_lo[i] + 1, edge_hi[i]):
                    cuts[j] += 1
        cnt[C_TRAIL] = t
        for s in range(s0[c], s1[c]):
            total[s] += size[c]
        for j in range(s0[c] + 1, s1[c]):
            cuts[j] += 1
        off[c] = -1
        cnt[C_PLACED] = pl
