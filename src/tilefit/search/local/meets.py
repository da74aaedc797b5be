"""What a block meets at any base: the flat tables of the ruin-and-recreate route.

A block's pieces can only collide with pieces that live at the same time, and
its conflict sides only with their partners, wherever the blocks stand. So
for every block the tables list, once and for all:

- every piece of another block that lives with one of its pieces (the pair's
  offsets, sizes, and the steps they share, which weigh an overlap);
- every conflict side of its own, with the partner's side;
- its valid bases (closed intervals, and the congruence ``base % mod == res``).

From these alone ``tilefit.search.local.ruin`` finds where a block may stand among
the placed ones, and what it would displace anywhere, without looking at the
rest of the capture.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from tilefit.search.blocks import SearchModel
from tilefit.search.kernel.arrays import Array


class Pairs(NamedTuple):
    """Rows by block (``*ptr`` are row starts); every field a flat int64 array."""

    ptr: Array  # piece pairs of block i: ptr[i]:ptr[i + 1]
    mine_off: Array  # its piece: offset in the block and size
    mine_size: Array
    other: Array  # the other block, its piece's offset and size
    other_off: Array
    other_size: Array
    steps: Array  # steps both pieces live
    cptr: Array  # conflict sides of block i: cptr[i]:cptr[i + 1]
    c_off: Array
    c_size: Array
    c_other: Array
    c_other_off: Array
    c_other_size: Array
    dptr: Array  # valid bases of block i: [dlo[k], dhi[k]] for k in dptr[i]:dptr[i + 1]
    dlo: Array
    dhi: Array
    res: Array
    mod: Array
    elem: Array  # element starts, then the memory size
    size: Array  # the block's bytes
    area: Array  # bytes x steps of the block's pieces
    room: Array  # bytes its valid bases reach


def pair_tables(model: SearchModel, limit: int) -> Pairs | None:
    """The tables of ``model``, or None when it has more than ``limit`` piece pairs."""
    blocks = model.blocks
    owner = np.array([k for k, b in enumerate(blocks) for _ in b.pieces], dtype=np.int64)
    off = np.array([p.offset for b in blocks for p in b.pieces], dtype=np.int64)
    size = np.array([p.size for b in blocks for p in b.pieces], dtype=np.int64)
    start = np.array([p.start for b in blocks for p in b.pieces], dtype=np.int64)
    end = np.array([p.end for b in blocks for p in b.pieces], dtype=np.int64)
    by_start = np.argsort(start, kind="stable")
    starts = start[by_start]
    mine: list[Array] = []
    theirs: list[Array] = []
    total = 0
    for a in range(len(owner)):
        # Pieces starting before a ends and ending after it starts live with it.
        near = by_start[: np.searchsorted(starts, end[a], side="left")]
        near = near[(end[near] > start[a]) & (owner[near] != owner[a])]
        total += len(near)
        if total > limit:
            return None
        mine.append(np.full(len(near), a, dtype=np.int64))
        theirs.append(near)
    a_of = np.concatenate(mine) if mine else np.zeros(0, dtype=np.int64)
    b_of = np.concatenate(theirs) if theirs else np.zeros(0, dtype=np.int64)
    rows = np.argsort(owner[a_of], kind="stable")
    a_of, b_of = a_of[rows], b_of[rows]
    n = len(blocks)
    sides: list[list[tuple[int, int, int, int, int]]] = [[] for _ in blocks]
    for edge in model.edges:
        x, y = edge.a, edge.b
        sides[x.block].append((x.offset, x.size, y.block, y.offset, y.size))
        sides[y.block].append((y.offset, y.size, x.block, x.offset, x.size))
    flat_sides = [s for row in sides for s in row]

    def column(k: int) -> Array:
        return np.array([s[k] for s in flat_sides], dtype=np.int64)

    return Pairs(
        ptr=_pointers(np.bincount(owner[a_of], minlength=n)),
        mine_off=off[a_of],
        mine_size=size[a_of],
        other=owner[b_of],
        other_off=off[b_of],
        other_size=size[b_of],
        steps=np.minimum(end[a_of], end[b_of]) - np.maximum(start[a_of], start[b_of]),
        cptr=_pointers(np.array([len(row) for row in sides], dtype=np.int64)),
        c_off=column(0),
        c_size=column(1),
        c_other=column(2),
        c_other_off=column(3),
        c_other_size=column(4),
        dptr=_pointers(np.array([len(b.bases) for b in blocks], dtype=np.int64)),
        dlo=np.array([lo for b in blocks for lo, _ in b.bases], dtype=np.int64),
        dhi=np.array([hi for b in blocks for _, hi in b.bases], dtype=np.int64),
        res=np.array([b.residue for b in blocks], dtype=np.int64),
        mod=np.array([b.modulus for b in blocks], dtype=np.int64),
        elem=np.array(model.elements, dtype=np.int64),
        size=np.array([b.size for b in blocks], dtype=np.int64),
        area=np.array([b.area for b in blocks], dtype=np.int64),
        room=np.array(
            [sum(hi - lo + 1 for lo, hi in b.bases) + b.size for b in blocks], dtype=np.int64
        ),
    )


def _pointers(counts: Array) -> Array:
    ptr = np.zeros(len(counts) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(counts)
    return ptr
