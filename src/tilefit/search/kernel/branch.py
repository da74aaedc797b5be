"""The branch-and-bound over canonical placements: the inner loop, on flat integer arrays.

Written in the subset of Python that numba compiles (scalar loops over flat
arrays, named tuples of them, no objects), so that the same text runs compiled
when numba is installed and as plain Python otherwise (see
``tilefit.search.kernel.jit``). The arrays travel as two named tuples: ``Tables``, the
problem, and ``State``, one run's search state (``tilefit.search.kernel.layout``).
Placing a block and inference live in ``tilefit.search.kernel.place``, the frames of
the search tree in ``tilefit.search.kernel.frames``, the orderings in
``tilefit.search.kernel.ordering``.

Blocks are placed one at a time, each at its *lowest feasible offset* (``low``),
in never-decreasing order of (offset, rank). Canonical placements (every block
as low as the blocks placed before it allow) are enough: any placement can be
lowered into one. Pruning, each sound under every capture constraint and in any
combination (dominance, decomposition, the twin rule and the stretch bound are
switched by ``tilefit.search.params.Prunings``, through the tables
``free_problem`` builds):

- a block that can no longer be placed anywhere fails the node;
- dominance: a candidate at or above some unplaced block's lowest top (or, for
  a block with unplaced conflict partners, the end of the element holding that
  top) leaves a gap that block could fill, so it is skipped;
- section inference: in each time section the unplaced blocks must fit into the
  space above the section's floor that their allowed sets (less pinned
  obstacles) really offer;
- the stretch bound (``place.stretches_fit``, off unless the search's budget asks:
  ``Prunings(stretch=True)``): where that space is cut into
  stretches (gaps between ranges, pinned obstacles), a block lies inside one,
  so for every length L the blocks larger than L must fit in the stretches
  longer than L; the bytes of stretches too short for every block are wasted;
- decomposition: when no unplaced block (or conflict edge between unplaced
  blocks) crosses a section boundary, both sides are solved apart, and a side
  that fails fails the whole choice;
- a block that meets no unplaced block in time or by conflict is forced: if its
  subtree fails, the node fails;
- symmetry: of interchangeable blocks (*twins*, see
  ``tilefit.search.kernel.arrays._twins``), one is chosen only once its twin of
  lower rank is placed.

Why the twin rule loses no placement. Exchanging twins u and v (rank u <
rank v) maps placements to placements, and also every node of the search to
a node with the same geometry: the same occupied rectangles, conflict
sides, lows, floors and section totals, only with u and v's names swapped.
While both are unplaced their lows are equal (computed from the same placed
blocks with the same sizes, sections, bases and partners), and u sorts first.
Now take any placement P that the search without the rule reaches, choosing
its blocks in (offset, rank) order. Twins live together, so their offsets in
P differ; exchange twins in P until in every class of twins the offsets rise
with the rank: that gives a placement P' made of exactly the same rectangles,
whose path visits nodes of the same geometry as P's, offset for offset, so
every pruning (each decided by that geometry, the frontier offset and the
ranks among blocks at one offset, where the blocks are pairwise apart in
time and not partners, so their order changes no low) lets P' through when
it lets P through. On P''s path a twin is always chosen after its twins of
lower rank, which sit lower: the rule cuts nothing from it.

The whole search state lives in arrays, so a run stops after a node budget and
resumes later exactly where it was; so it does at a deadline, read every
CLOCK_EVERY nodes, since on a large capture one node can take milliseconds. So
it does when it runs out of room: the trail and the candidate lists start
short, and before each step the kernel returns GROW unless one more step fits;
the driver (``tilefit.search.kernel.driver``) lengthens them and calls again. Candidate
lists are copied per frame only while they stay short; beyond that a child's
list is written over its parent's and rebuilt on backing up, so that a deep
path does not hold the square of the blocks.
"""

from __future__ import annotations

from tilefit.search.kernel.frames import descend, forced, has_block, open_parts, push_part, restore
from tilefit.search.kernel.jit import clock, entry
from tilefit.search.kernel.layout import (
    C_CAND,
    C_FRAMES,
    C_NODES,
    C_PEND,
    C_PLACED,
    C_STARTED,
    C_STEP,
    C_TRAIL,
    EXHAUSTED,
    F_CE,
    F_CHOSEN,
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
    GROW,
    INF,
    NF,
    RUNNING,
    State,
    Tables,
)
from tilefit.search.kernel.ordering import rank_all
from tilefit.search.kernel.place import lowest_valid, place, undo_to

CLOCK_EVERY = 64
"""Nodes between two readings of the clock (a power of two: the test is a mask)."""


@entry
def run(tb: Tables, st: State, budget: int, deadline: float) -> int:
    """Search until a placement is found, the search is exhausted, ``budget`` nodes, or
    the ``deadline`` (``time.monotonic()`` seconds, read every CLOCK_EVERY nodes).

    Returns FOUND (bases in ``st.off``), EXHAUSTED (no placement exists),
    RUNNING (call again with a larger budget or a later deadline to go on) or
    GROW (lengthen the trail or cand, see ``tilefit.search.kernel.driver``, and call again).
    """
    # Fields read once, before the loops (see tilefit.search.kernel.layout).
    s0, s1, elem = tb.s0, tb.s1, tb.elem
    bases, members, starts, partners, twin = tb.bases, tb.members, tb.starts, tb.partners, tb.twin
    cnt, frames, cand, low, rank, off = st.cnt, st.frames, st.cand, st.low, st.rank, st.off
    learned = st.learned
    m = len(tb.size)
    # The room one step needs: a placement's and a re-ranking's trail entries,
    # and a part's candidate list (a child's is built in place when short of it).
    trail_room = len(st.trail.tag) - cnt[C_STEP]
    cand_room = len(cand) - m
    nsec = len(st.floor)
    if cnt[C_STARTED] == 0:
        cnt[C_STARTED] = 1
        rank_all(tb, st)
        for v in range(m):
            low[v] = lowest_valid(v, 0, bases, partners, elem, off)
            if low[v] >= INF:
                return EXHAUSTED
        # The static parts: section ranges between boundaries that nothing crosses.
        cutp, cuts = st.cutp, st.cuts
        n_parts = 0
        a = 0
        for j in range(1, nsec + 1):
            if j == nsec or cuts[j] == 0:
                if has_block(a, j, s0, s1, off):
                    cutp[2 * n_parts] = a
                    cutp[2 * n_parts + 1] = j
                    n_parts += 1
                a = j
        for q in range(n_parts - 1, -1, -1):
            push_part(st.pend, cnt, cutp[2 * q], cutp[2 * q + 1], -1, -1, -1)
        status = open_parts(tb, st)
        cnt[C_NODES] += 1
        if status == FOUND:
            return FOUND
        if cnt[C_NODES] >= budget:
            return RUNNING

    while True:
        if cnt[C_TRAIL] > trail_room or cnt[C_CAND] > cand_room:
            return GROW
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
            if twin[c] >= 0 and off[twin[c]] < 0:
                continue
            if place(c, x, tb, st):
                chosen = c
                break
            undo_to(cnt[C_PLACED] - 1, tb, st)
        frames[fb + F_POS] = pos
        if chosen >= 0:
            frames[fb + F_CHOSEN] = chosen
            frames[fb + F_PLEN] = cnt[C_PLACED] - 1
            frames[fb + F_PEND] = cnt[C_PEND]
            status = descend(fb, chosen, lo, hi, tb, st)
            cnt[C_NODES] += 1
            if status == FOUND:
                return FOUND
            if cnt[C_NODES] >= budget:
                return RUNNING
            if cnt[C_NODES] & (CLOCK_EVERY - 1) == 0 and clock() >= deadline:
                return RUNNING
            continue
        # The top frame is exhausted: fail upwards.
        while True:
            top = (cnt[C_FRAMES] - 1) * NF
            if frames[top + F_ROOT] == 1:
                back = frames[top + F_SPLIT]
                if back < 0:
                    return EXHAUSTED
            else:
                back = cnt[C_FRAMES] - 2
            bb = back * NF
            cnt[C_FRAMES] = back + 1
            cnt[C_CAND] = frames[bb + F_CE]
            c = frames[bb + F_CHOSEN]
            learned[c] += 1  # its subtree failed: the learned key (kernel.ordering)
            undo_to(frames[bb + F_PLEN], tb, st)
            cnt[C_PEND] = frames[bb + F_PEND]
            frames[bb + F_CHOSEN] = -1
            if frames[bb + F_SHARED] == 1:
                restore(bb, c, cand, frames, low, rank)
            if forced(c, s0[c], s1[c], members, starts, partners, off):
                frames[bb + F_POS] = frames[bb + F_CE]
                continue
            break
