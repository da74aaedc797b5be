"""Orderings: which of the blocks at one offset the search tries first.

Kernel code (see ``tilefit.search.kernel.branch``). Blocks are ranked by the
ordering's keys, descending, then by block index. The key codes: 0 lifetime
width, 1 width x size, 2 the largest section total over the block's
lifetime (bytes of the unplaced blocks alive there), 3 (``LEARNED``) how
often a subtree under the block failed in the runs before (``State.learned``,
TelaMalloc's learning: the blocks behind the most backtracking go first). A
run ranks every block when it starts; a part split off during the search is
re-ranked from the totals left then, like a fresh problem.
"""

from __future__ import annotations

from typing import Any

from tilefit.search.kernel.jit import jit
from tilefit.search.kernel.layout import T_RANK, State, Tables
from tilefit.search.kernel.place import record

LEARNED = 3
"""The key code of the learned key: how often a subtree under the block failed before."""


@jit
def rank_all(tb: Tables, st: State) -> None:
    """Rank every block (cand serves as scratch: no frame is open yet)."""
    m = len(tb.size)
    cand, rank = st.cand, st.rank
    for v in range(m):
        cand[v] = v
    _order(0, m, tb, st)
    for i in range(m):
        rank[cand[i]] = i


@jit
def rerank(cs: int, ce: int, tb: Tables, st: State) -> None:
    """Rank the blocks of cand[cs:ce] among themselves; the trail keeps the old ranks."""
    _order(cs, ce, tb, st)
    cand, rank, trail, cnt = st.cand, st.rank, st.trail, st.cnt
    for i in range(cs, ce):
        v = cand[i]
        record(trail, cnt, T_RANK, v, rank[v])
        rank[v] = i - cs


@jit
def _order(cs: int, ce: int, tb: Tables, st: State) -> None:
    """Sort cand[cs:ce] in place into the ordering."""
    s0, s1, width, size = tb.s0, tb.s1, tb.width, tb.size
    cand, tmp, total, keyorder, learned = st.cand, st.tmp, st.total, st.keyorder, st.learned
    for i in range(cs, ce):
        v = cand[i]
        t = 0
        for s in range(s0[v], s1[v]):
            if total[s] > t:
                t = total[s]
        tmp[v] = t
    for i in range(cs + 1, ce):
        v = cand[i]
        j = i - 1
        while j >= cs and _ranks_before(v, cand[j], keyorder, width, size, tmp, learned):
            cand[j + 1] = cand[j]
            j -= 1
        cand[j + 1] = v


@jit
def _ranks_before(
    u: int, v: int, keyorder: Any, width: Any, size: Any, tkey: Any, learned: Any
) -> bool:
    for q in range(len(keyorder)):
        code = keyorder[q]
        if code == 0:
            a = width[u]
            b = width[v]
        elif code == 1:
            a = width[u] * size[u]
            b = width[v] * size[v]
        elif code == 2:
            a = tkey[u]
            b = tkey[v]
        else:
            a = learned[u]
            b = learned[v]
        if a != b:
            return bool(a > b)
    return u < v
