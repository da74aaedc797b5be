"""The search kernel's state layout: statuses, frame fields, counters, trail kinds, arrays.

The kernel's arrays travel as two named tuples: ``Tables`` (one free problem,
read-only) and ``State`` (one run's search). Compiled, every array taken from a
tuple, and every array passed to a function numba does not inline (one with
loops of its own), costs a reference count. So kernel functions read the
fields they use once, before their loops, and helpers take only the arrays or
small groups (``Rows``, ``Partners``, ...) they read; done so, the search is
faster than with the arrays as 20-45 separate arguments.
"""

from __future__ import annotations

from typing import Any, NamedTuple

INF = 1 << 62

RUNNING = 0
FOUND = 1
EXHAUSTED = 2
GROW = 3  # out of room: the driver lengthens the trail or cand and calls again

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
F_SHARED = 13  # 1: its child's list was built over this one's (rebuilt on backing up)
NF = 14

# Counters.
C_TRAIL = 0
C_PLACED = 1
C_FRAMES = 2
C_PEND = 3
C_CAND = 4
C_NODES = 5
C_STAMP = 6
C_STARTED = 7
C_COPY = 8  # a child's candidate list is copied while cand stays this short, else built in place
C_STEP = 9  # trail entries one search step may push (the room kept free)
C_STRETCH = 10  # placements failed by the stretch bound alone (see place.stretches_fit)
NC = 11

# Pending parts: (lo, hi, split frame, frontier offset, frontier rank).
NP = 5

# Trail kinds.
T_LOW = 0
T_FLOOR = 1
T_EDGE = 2
T_RANK = 3


class Rows(NamedTuple):
    """A compressed table: row r is ``idx[ptr[r] : ptr[r + 1]]``."""

    ptr: Any
    idx: Any


class ValidBases(NamedTuple):
    """Block v's valid bases: x % mod[v] == res[v], inside one of the closed
    intervals ``[lo[k], hi[k]]`` for k in ``ptr[v] : ptr[v + 1]``, ascending."""

    res: Any
    mod: Any
    ptr: Any
    lo: Any
    hi: Any


class Partners(NamedTuple):
    """Block v's conflict partners, for p in ``ptr[v] : ptr[v + 1]``: block idx[p],
    the byte sizes of v's side (mine[p]) and of the partner's (theirs[p]), the edge."""

    ptr: Any
    idx: Any
    mine: Any
    theirs: Any
    edge: Any


class Regions(NamedTuple):
    """Section s's region, for k in ``ptr[s] : ptr[s + 1]``: the addresses
    ``[lo[k], hi[k])`` its free blocks may use, ascending; suf[k]: bytes from k up."""

    ptr: Any
    lo: Any
    hi: Any
    suf: Any


class Trail(NamedTuple):
    """Entry t: tag[t] = index * 4 + kind, and the old value; its height is the
    counter C_TRAIL. (Kind and index share one array: the trail is the state's
    largest part when long-lived blocks lift many others.)"""

    tag: Any
    val: Any


class Tables(NamedTuple):
    """One free problem's kernel inputs, read-only; every array flat int64."""

    size: Any  # per block
    s0: Any  # per block: its sections [s0, s1)
    s1: Any
    width: Any  # per block: its lifetime's length
    bases: ValidBases
    # Block c shares a section with the members of section s0[c] and the blocks
    # starting in sections s0[c] + 1 .. s1[c] - 1: no table of pairs, which
    # would grow with the square of the blocks for long-lived ones.
    members: Rows  # per section: the blocks alive in it, ascending
    starts: Rows  # per section: the blocks whose first section it is, ascending
    partners: Partners
    edge_lo: Any  # per conflict edge between free blocks: the sections it spans
    edge_hi: Any
    elem: Any  # element start addresses, then the memory size
    regions: Regions
    twin: Any  # per block: its twin of next lower rank, or -1 (see tilefit.search.kernel.arrays)
    dominance: Any  # one entry: 1 where the frames prune by dominance height (a switch)
    # The stretch bound's tables, all four empty where it is checked in no section:
    stretch: Any  # per section: 1 where the stretch bound is checked (free_problem's switch)
    longest: (
        Any  # per section s, for k in regions.ptr[s] : ptr[s + 1]: its intervals, longest first
    )
    bysize: Rows  # per section: the blocks alive in it, largest first
    waste: Any  # per section: bytes of its stretches shorter than the largest block alive there


class State(NamedTuple):
    """One run's whole search state; every array flat int64."""

    rank: Any  # per block: its place in the ordering (parts split off re-rank)
    keyorder: Any  # the ordering's key codes, most significant first
    off: Any  # per block: its base, or -1 while unplaced
    low: Any  # per block: its lowest feasible base
    floor: Any  # per section: no unplaced block there starts below it
    total: Any  # per section: bytes of the unplaced blocks alive there
    cuts: Any  # per section boundary: unplaced blocks and live edges crossing it
    edge_alive: Any
    trail: Trail  # grows on demand (GROW)
    placed: Any  # the placed stack, and the trail height at each placement
    placed_mark: Any
    frames: Any
    cand: Any  # candidate lists of the frames; grows on demand (GROW)
    pend: Any  # pending parts
    cnt: Any  # counters
    mark: Any  # per section: stamp of the last placement that touched it
    aff: Any  # the sections a placement may lift
    cutp: Any  # scratch for cut points and parts
    tmp: Any  # per-block scratch
    learned: Any  # per block: subtrees of it that failed, over the runs of one search
