"""Whether any two placed requests meet, decided by numpy: the referee's quick look.

Each request is a rectangle, steps [start, end) by addresses [low, high); two meet
when both spans intersect. The steps go into a segment tree: a lifetime is cut into
the few tree nodes that cover it exactly, and two lifetimes intersect if and only if a
node of one is the other's node or an ancestor of it. So no two rectangles meet when
the rectangles stored at each node are disjoint in address and none of them meets
one stored at an ancestor. Sorted by low address, a node's rectangles are disjoint
when each ends by the next one's low; once they are, the one rectangle at an ancestor
that a query could meet is the last one starting below the query's high: one
``searchsorted`` per query and ancestor level, for all queries at once.

It only ever answers "none meet" or "some may": the referee's sweep (``check``)
counts and lists the pairs whenever this does not clear the placement. Like the rest
of the referee, it shares nothing with the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from tilefit.model.distinct import distinct

if TYPE_CHECKING:  # numpy.typing is for the type checker only
    from numpy.typing import NDArray

    Ints = NDArray[np.int64]
    Indices = NDArray[Any]  # int32 or int64


def none_meet(starts: Ints, ends: Ints, lows: Ints, highs: Ints) -> bool:
    """True when no two rectangles [starts, ends) x [lows, highs) intersect. Every span is
    non-empty or (a lifetime's empty piece) ``starts == ends``, which meets nothing."""
    if len(starts) < 2:
        return True
    # Indices below 2^31 (nodes, ranks, request positions) kept as int32: half the memory.
    points = distinct(np.concatenate((starts, ends)))
    first = np.searchsorted(points, starts).astype(np.int32)
    stop = np.searchsorted(points, ends).astype(np.int32)
    leaves = 1 << len(points).bit_length()  # more leaves than points
    del points
    node, owner = _cover(first, stop, leaves)
    del first, stop
    # Addresses by rank among all lows and highs: exact, and small enough for one key.
    ranks = distinct(np.concatenate((lows, highs)))
    width = len(ranks)
    low = np.searchsorted(ranks, lows).astype(np.int32)[owner]
    high = np.searchsorted(ranks, highs).astype(np.int32)[owner]
    del ranks, owner
    key = node.astype(np.int64) * width + low
    order = np.argsort(key, kind="stable")
    key, node, low, high = key[order], node[order], low[order], high[order]
    del order
    if np.any((node[1:] == node[:-1]) & (high[:-1] > low[1:])):
        return False  # two rectangles stored at one node meet
    return not _meets_an_ancestor(key, node, low, high, width, 2 * leaves)


def _cover(first: Indices, stop: Indices, leaves: int) -> tuple[Indices, Indices]:
    """The segment tree's nodes (heap numbering, root 1) covering each [first, stop) of
    leaves exactly, with the index of the span each belongs to."""
    lo, hi = first + np.int32(leaves), stop + np.int32(leaves)
    owner = np.arange(len(first), dtype=np.int32)
    nodes: list[Indices] = []
    owners: list[Indices] = []
    while len(lo):
        open_ = lo < hi
        lo, hi, owner = lo[open_], hi[open_], owner[open_]
        odd = (lo & 1).astype(bool)
        nodes.append(lo[odd])
        owners.append(owner[odd])
        lo = lo + odd
        odd = (hi & 1).astype(bool)
        hi = hi - odd
        nodes.append(hi[odd])
        owners.append(owner[odd])
        lo, hi = lo >> 1, hi >> 1
    return np.concatenate(nodes), np.concatenate(owners)


def _meets_an_ancestor(
    key: Ints, node: Indices, low: Indices, high: Indices, width: int, tree: int
) -> bool:
    """Whether a stored rectangle meets one stored at a strict ancestor of its node."""
    stored: NDArray[Any] = np.bincount(node, minlength=tree) > 0
    above, q_low, q_high = node, low, high
    while True:
        above = above >> 1
        alive = above > 0
        above, q_low, q_high = above[alive], q_low[alive], q_high[alive]
        if not len(above):
            return False
        asked = stored[above]
        at, a_low, a_high = above[asked], q_low[asked], q_high[asked]
        # The last rectangle at the ancestor starting below the query's high.
        pos = np.searchsorted(key, at.astype(np.int64) * width + a_high, side="left") - 1
        found = pos >= 0
        pos = np.where(found, pos, 0)
        if np.any(found & (node[pos] == at) & (high[pos] > a_low)):
            return True
