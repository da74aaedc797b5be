"""The branch-and-bound over canonical placements: the inner loop, on flat integer arrays.

Written in the subset of Python that numba compiles (scalar loops over flat
arrays, no objects), so that the same text runs compiled when numba is
installed and as plain Python otherwise (see ``tilefit.search.jit``).

Blocks are placed one at a time, each at its *lowest feasible offset* (``low``),
in never-decreasing order of (offset, rank). Canonical placements (every block
as low as the blocks placed before it allow) are enough: any placement can be
lowered into one. Pruning, each sound under every capture constraint:

- a block that can no longer be placed anywhere fails the node;
- dominance: a candidate at or above some unplaced block's lowest top (or, for
  a block with unplaced conflict partners, the end of the element holding that
  top) leaves a gap that block could fill, so it is skipped;
- section inference: in each time section the unplaced blocks must fit into the
  space above the section's floor that their allowed sets (less pinned
  obstacles) really offer;
- decomposition: when no unplaced block (or conflict edge between unplaced
  blocks) crosses a section boundary, both sides are solved apart, and a side
  that fails fails the whole choice;
- a block that meets no unplaced block in time or by conflict is forced: if its
  subtree fails, the node fails.

The whole search state lives in arrays, so a run stops after a node budget and
resumes later exactly where it was (deadline checks happen between runs).
"""

from __future__ import annotations

from typing import Any

from tilefit.search.jit import jit

INF = 1 << 62

RUNNING = 0
FOUND = 1
EXHAUSTED = 2

# Frame fields (frames is flat: frame k starts at k * NF).
F_LO = 0  # the part's section range [lo, hi)
F_HI = 1
F_FOFF = 2  # frontier: (offset, rank) of the last block placed on the path
F_FRANK = 3
F_CS = 4  # candidate list cand[cs:ce], sorted by (low, rank)
F_CE = 5
F_POS = 6  # next candidate to try
F_PLEN = 7  # placed-stack height before this frame's choice
F_ROOT = 8  # 1: the first frame of a part
F_SPLIT = 9  # for a part's first frame: the frame that split it off (-1: none)
F_PEND = 10  # pending-part stack height before this frame's choice
F_MINH = 11  # dominance height
F_CHOSEN = 12  # block placed by this frame, or -1
NF = 13

# Counters.
C_TRAIL = 0
C_PLACED = 1
C_FRAMES = 2
C_PEND = 3
C_CAND = 4
C_NODES = 5
C_STAMP = 6
C_STARTED = 7
NC = 8

# Pending parts: (lo, hi, split frame, frontier offset, frontier rank).
NP = 5

# Trail kinds.
T_LOW = 0
T_FLOOR = 1
T_EDGE = 2
T_RANK = 3


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
def run(
    size: Any,
    res: Any,
    mod: Any,
    s0: Any,
    s1: Any,
    rank: Any,
    ov_ptr: Any,
    ov_idx: Any,
    sec_ptr: Any,
    sec_idx: Any,
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
    width: Any,
    keyorder: Any,
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
    frames: Any,
    cand: Any,
    pend: Any,
    cnt: Any,
    mark: Any,
    aff: Any,
    cutp: Any,
    tmp: Any,
    budget: int,
) -> int:
    """Search until a placement is found, the search is exhausted, or ``budget`` nodes.

    Returns FOUND (bases in ``off``), EXHAUSTED (no placement exists) or
    RUNNING (call again with a larger budget to go on).
    """
    m = len(size)
    nsec = len(floor)
    if cnt[C_STARTED] == 0:
        cnt[C_STARTED] = 1
        for v in range(m):
            low[v] = lowest_valid(
                v, 0, res, mod, bi_ptr, bi_lo, bi_hi, pt_ptr, pt_idx, pt_len, pt_olen, elem, off
            )
            if low[v] >= INF:
                return EXHAUSTED
        # The static parts: section ranges between boundaries that nothing crosses.
        n_parts = 0
        a = 0
        for j in range(1, nsec + 1):
            if j == nsec or cuts[j] == 0:
                if _has_block(a, j, m, s0, s1, off):
                    cutp[2 * n_parts] = a
                    cutp[2 * n_parts + 1] = j
                    n_parts += 1
                a = j
        for q in range(n_parts - 1, -1, -1):
            _push_part(pend, cnt, cutp[2 * q], cutp[2 * q + 1], -1, -1, -1)
        status = _open_parts(
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
        cnt[C_NODES] += 1
        if status == FOUND:
            return FOUND
        if cnt[C_NODES] >= budget:
            return RUNNING

    while True:
        fb = (cnt[C_FRAMES] - 1) * NF
        f = frames[fb + F_FOFF]
        fr = frames[fb + F_FRANK]
        ce = frames[fb + F_CE]
        minh = frames[fb + F_MINH]
        lo = frames[fb + F_LO]
        hi = frames[fb + F_HI]
        pos = frames[fb + F_POS]
        chosen = -1
        while pos < ce:
            c = cand[pos]
            pos += 1
            x = low[c]
            if x >= minh:
                pos = ce
                break
            if x < f or (x == f and rank[c] < fr):
                continue
            if _place(
                c,
                x,
                lo,
                hi,
                size,
                s0,
                s1,
                ov_ptr,
                ov_idx,
                sec_ptr,
                sec_idx,
                res,
                mod,
                bi_ptr,
                bi_lo,
                bi_hi,
                pt_ptr,
                pt_idx,
                pt_len,
                pt_olen,
                pt_edge,
                edge_lo,
                edge_hi,
                elem,
                rg_ptr,
                rg_lo,
                rg_hi,
                rg_suf,
                off,
                low,
                floor,
                total,
                cuts,
                edge_alive,
                tr_kind,
                tr_idx,
                tr_val,
                placed,
                placed_mark,
                cnt,
                mark,
                aff,
            ):
                chosen = c
                break
            _undo_to(
                cnt[C_PLACED] - 1,
                size,
                s0,
                s1,
                low,
                rank,
                floor,
                total,
                cuts,
                edge_alive,
                edge_lo,
                edge_hi,
                off,
                tr_kind,
                tr_idx,
                tr_val,
                placed,
                placed_mark,
                cnt,
            )
        frames[fb + F_POS] = pos
        if chosen >= 0:
            frames[fb + F_CHOSEN] = chosen
            frames[fb + F_PLEN] = cnt[C_PLACED] - 1
            frames[fb + F_PEND] = cnt[C_PEND]
            status = _descend(
                fb,
                chosen,
                lo,
                hi,
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
                cuts,
                pt_ptr,
                pt_idx,
                pt_edge,
                edge_lo,
                edge_hi,
                cutp,
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
            cnt[C_NODES] += 1
            if status == FOUND:
                return FOUND
            if cnt[C_NODES] >= budget:
                return RUNNING
            continue
        # The top frame is exhausted: fail upwards.
        while True:
            tb = (cnt[C_FRAMES] - 1) * NF
            if frames[tb + F_ROOT] == 1:
                back = frames[tb + F_SPLIT]
                if back < 0:
                    return EXHAUSTED
            else:
                back = cnt[C_FRAMES] - 2
            bb = back * NF
            cnt[C_FRAMES] = back + 1
            cnt[C_CAND] = frames[bb + F_CE]
            c = frames[bb + F_CHOSEN]
            _undo_to(
                frames[bb + F_PLEN],
                size,
                s0,
                s1,
                low,
                rank,
                floor,
                total,
                cuts,
                edge_alive,
                edge_lo,
                edge_hi,
                off,
                tr_kind,
                tr_idx,
                tr_val,
                placed,
                placed_mark,
                cnt,
            )
            cnt[C_PEND] = frames[bb + F_PEND]
            frames[bb + F_CHOSEN] = -1
            if _forced(c, ov_ptr, ov_idx, pt_ptr, pt_idx, off):
                frames[bb + F_POS] = frames[bb + F_CE]
                continue
            break


@jit
def _place(
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
    # A section's floor is at least the lowest start of the blocks still to come there.
    if ok:
        for i in range(naff):
            s = aff[i]
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
            if not _fits_above(s, x, floor, total, rg_ptr, rg_lo, rg_hi, rg_suf):
                return False
        for i in range(naff):
            if not _fits_above(aff[i], x, floor, total, rg_ptr, rg_lo, rg_hi, rg_suf):
                return False
    return ok


@jit
def _fits_above(
    s: int, x: int, floor: Any, total: Any, rg_ptr: Any, rg_lo: Any, rg_hi: Any, rg_suf: Any
) -> bool:
    need = total[s]
    if need == 0:
        return True
    fl = floor[s] if floor[s] > x else x
    return bool(need <= space_above(s, fl, rg_ptr, rg_lo, rg_hi, rg_suf))


@jit
def _section_limit(
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
def _undo_to(
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


@jit
def _descend(
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
                _push_part(
                    pend, cnt, cutp[ncut + 2 * q], cutp[ncut + 2 * q + 1], fb // NF, x, rank[c]
                )
            return _open_parts(
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
        return _open_parts(
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
    limit = _section_limit(lo, hi, total, rg_ptr, rg_lo, rg_hi, rg_suf)
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
def _has_block(a: int, b: int, m: int, s0: Any, s1: Any, off: Any) -> bool:
    for v in range(m):  # noqa: SIM110 (numba compiles loops, not generators)
        if off[v] < 0 and s0[v] >= a and s1[v] <= b:
            return True
    return False


@jit
def _push_part(pend: Any, cnt: Any, a: int, b: int, split: int, f: int, fr: int) -> None:
    pb = cnt[C_PEND] * NP
    pend[pb] = a
    pend[pb + 1] = b
    pend[pb + 2] = split
    pend[pb + 3] = f
    pend[pb + 4] = fr
    cnt[C_PEND] += 1


@jit
def _open_parts(
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
        limit = _section_limit(a, b, total, rg_ptr, rg_lo, rg_hi, rg_suf)
        if limit < minh:
            minh = limit
        _new_frame(frames, cnt, a, b, pend[pb + 3], fr, cs, ce, 1, split, minh)
        return RUNNING
    return FOUND


@jit
def _forced(c: int, ov_ptr: Any, ov_idx: Any, pt_ptr: Any, pt_idx: Any, off: Any) -> bool:
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
