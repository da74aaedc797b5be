"""The problem as the search sees it: blocks, their pieces, and where each may go.

A block is a unit (a request outside every sequence, or a whole sequence).
Its pieces are its members: piece k occupies ``[base + offset_k, base +
offset_k + size_k)`` during the member's lifetime.

The canonical search (place each block at its lowest feasible offset, offsets
never decreasing) is complete only for blocks that are rigid rectangles in
time x address and whose conflict sides start at the block's base. Other
blocks, called *pinned*, are positioned by plain enumeration of their bases
before the canonical search starts, and stand as fixed obstacles for it:

- a sequence whose members do not all share one lifetime (an upper member can
  rest on a block placed later, which breaks the lowest-offset argument);
- a block with a conflict side that starts above its base (a lower block could
  then hold a later partner's element).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property

from tilefit.model.arcs import request_pieces
from tilefit.model.capture import Capture, Interval, element_index
from tilefit.model.placement import Placement
from tilefit.model.units import Unit, units

Bases = tuple[tuple[int, int], ...]
"""Valid block bases as closed intervals ``[lo, hi]``, ascending and disjoint."""


@dataclass(frozen=True, slots=True)
class Piece:
    """One member of a block: its place inside the block and its lifetime."""

    request: str
    offset: int
    size: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Block:
    id: str
    index: int  # capture order of the unit
    pieces: tuple[Piece, ...]
    size: int
    start: int
    end: int
    residue: int  # valid bases: base % modulus == residue
    modulus: int
    bases: Bases  # bases that keep every piece inside its allowed set

    @property
    def area(self) -> int:
        """Bytes x steps of its pieces: what leaving the block out costs the annealing."""
        return sum(p.size * (p.end - p.start) for p in self.pieces)

    @property
    def rigid(self) -> bool:
        """Every piece lives exactly as long as the block."""
        return all(p.start == self.start and p.end == self.end for p in self.pieces)


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a conflict edge at piece level: a byte span of a block."""

    block: int
    offset: int
    size: int


@dataclass(frozen=True, slots=True)
class Edge:
    a: Side
    b: Side


@dataclass(frozen=True)
class SearchModel:
    """Blocks, conflict edges between pieces, the memory elements, the memory top."""

    name: str
    blocks: tuple[Block, ...]
    edges: tuple[Edge, ...]
    elements: tuple[int, ...]  # element start addresses, then the memory size
    top: int  # every byte lies below it

    @property
    def pinned(self) -> tuple[int, ...]:
        """Blocks placed by enumeration (see the module text), in capture order."""
        out = {k for k, b in enumerate(self.blocks) if not b.rigid}
        for edge in self.edges:
            for side in (edge.a, edge.b):
                if side.offset > 0:
                    out.add(side.block)
        return tuple(sorted(out))

    def element(self, address: int) -> int:
        """The index of the memory element holding ``address``."""
        return element_index(self.elements, address)

    def side_elements(self, side: Side, base: int) -> tuple[int, int]:
        """The first and last memory element a side touches with its block at ``base``."""
        at = base + side.offset
        return self.element(at), self.element(at + side.size - 1)

    def partners(self, k: int) -> tuple[tuple[Side, Side], ...]:
        """Each conflict edge of block ``k`` as (its side, the other side), in edge order."""
        return self._partners[k]

    @cached_property
    def _partners(self) -> tuple[tuple[tuple[Side, Side], ...], ...]:
        # Indexed once: scanning every edge per call made stacking thousands of blocks slow.
        out: list[list[tuple[Side, Side]]] = [[] for _ in self.blocks]
        for edge in self.edges:
            out[edge.a.block].append((edge.a, edge.b))
            out[edge.b.block].append((edge.b, edge.a))
        return tuple(tuple(row) for row in out)

    def collision(self, k: int, base: int, j: int, there: int) -> tuple[Piece, Piece] | None:
        """The first piece of block ``k`` at ``base`` and piece of block ``j`` at ``there``
        that live at a common step and share a byte, or None."""
        for p in self.blocks[k].pieces:
            lo = base + p.offset
            for q in self.blocks[j].pieces:
                if p.start < q.end and q.start < p.end:
                    qlo = there + q.offset
                    if lo < qlo + q.size and qlo < lo + p.size:
                        return p, q
        return None

    def offsets(self, bases: Mapping[int, int]) -> dict[str, int]:
        """Request id -> offset, for every piece of the blocks numbered in ``bases``."""
        return {
            piece.request: base + piece.offset
            for k, base in bases.items()
            for piece in self.blocks[k].pieces
        }

    def bases_of(self, offsets: Mapping[str, int]) -> dict[int, int]:
        """Block index -> base, for every block whose pieces all have an offset (the
        inverse of ``offsets``; the first piece gives the base)."""
        out: dict[int, int] = {}
        for k, block in enumerate(self.blocks):
            if all(p.request in offsets for p in block.pieces):
                first = block.pieces[0]
                out[k] = offsets[first.request] - first.offset
        return out

    def placement(self, capture: Capture, bases: Mapping[int, int]) -> Placement:
        """The placement of ``capture`` with its requests at the blocks' ``bases``, in
        capture order (every request the blocks hold; the model may hold only some)."""
        offsets = self.offsets(bases)
        return Placement(
            capture.name, {r.id: offsets[r.id] for r in capture.requests if r.id in offsets}
        )

    def lowest_tops(self) -> tuple[int, ...]:
        """Each block's lowest possible top: its lowest valid base plus its size."""
        return tuple(b.bases[0][0] + b.size for b in self.blocks if b.bases)

    def restricted(self, keep: frozenset[int]) -> SearchModel:
        """The same problem with only the blocks numbered in ``keep``."""
        new = {old: k for k, old in enumerate(sorted(keep))}
        edges = tuple(
            Edge(
                Side(new[e.a.block], e.a.offset, e.a.size),
                Side(new[e.b.block], e.b.offset, e.b.size),
            )
            for e in self.edges
            if e.a.block in new and e.b.block in new
        )
        blocks = tuple(self.blocks[old] for old in sorted(keep))
        return SearchModel(self.name, blocks, edges, self.elements, self.top)


def build_model(capture: Capture, top: int | None = None) -> SearchModel:
    """The search's view of ``capture``, with every byte below ``top`` (default: memory size)."""
    memory = capture.memory
    limit = memory.size if top is None else min(top, memory.size)
    allowed_of: dict[tuple[str, bool], tuple[Interval, ...]] = {}
    blocks: list[Block] = []
    unit_list = units(capture)
    for unit in unit_list:
        # A lifetime that wraps around a cyclic capture's circle is two pieces at one
        # offset: such a block is not rigid, so it is pinned (see the module text).
        pieces = tuple(
            Piece(m.id, o, m.size, lo, hi)
            for m, o in zip(unit.members, unit.offsets, strict=True)
            for lo, hi in request_pieces(m, capture.horizon)
        )
        bases: Bases = ((0, limit),)
        for piece in pieces:
            member = capture.request_by_id[piece.request]
            key = (member.cls, member.interleaved)
            if key not in allowed_of:
                allowed_of[key] = memory.allowed(*key)
            fits = tuple(
                (lo - piece.offset, min(hi, limit) - piece.offset - piece.size)
                for lo, hi in allowed_of[key]
                if min(hi, limit) - lo >= piece.size
            )
            bases = intersect(bases, fits)
        bases = intersect(bases, ((0, limit - unit.size),))
        blocks.append(_block(unit, pieces, bases))
    elements = (*memory.elements, memory.size)
    edges: list[Edge] = []
    for edge in _edges(capture, unit_list):
        if edge.a.block != edge.b.block:
            edges.append(edge)
            continue
        # Both sides in one block: a fixed distance apart, so the edge only forbids bases.
        k = edge.a.block
        blocks[k] = replace(blocks[k], bases=_separate(blocks[k].bases, edge, elements))
    return SearchModel(capture.name, tuple(blocks), tuple(edges), elements, limit)


def _separate(bases: Bases, edge: Edge, elements: tuple[int, ...]) -> Bases:
    """Drop the bases at which two spans of one block share a memory element."""
    low, high = sorted((edge.a, edge.b), key=lambda s: s.offset)
    if high.offset < low.offset + low.size:  # the same bytes: never separable
        return ()
    gap = high.offset - (low.offset + low.size - 1)  # from low's last byte to high's first
    # low's last byte p and high's first byte p + gap both inside one element [e0, e1)
    return subtract_all(
        bases,
        (
            (e0 - low.offset - low.size + 1, e1 - gap - low.offset - low.size)
            for e0, e1 in itertools.pairwise(elements)
        ),
    )


def _block(unit: Unit, pieces: tuple[Piece, ...], bases: Bases) -> Block:
    return Block(
        id=unit.id,
        index=unit.index,
        pieces=pieces,
        size=unit.size,
        start=min(p.start for p in pieces),  # the unit's, unless a piece wraps
        end=max(p.end for p in pieces),
        residue=unit.base_residue,
        modulus=unit.base_modulus,
        bases=bases,
    )


def _edges(capture: Capture, unit_list: tuple[Unit, ...]) -> tuple[Edge, ...]:
    """Conflict edges between block byte spans; an edge naming a sequence spans it whole."""
    where: dict[str, Side] = {}
    for k, unit in enumerate(unit_list):
        where[unit.id] = Side(k, 0, unit.size)
        if unit.is_sequence:
            for member, offset in zip(unit.members, unit.offsets, strict=True):
                where[member.id] = Side(k, offset, member.size)
    edges: list[Edge] = []
    seen: set[tuple[Side, Side]] = set()
    for conflict in capture.conflicts:
        a, b = where[conflict.a], where[conflict.b]
        key = (a, b) if (a.block, a.offset) <= (b.block, b.offset) else (b, a)
        if key not in seen:
            seen.add(key)
            edges.append(Edge(*key))
    return tuple(edges)


def intersect(xs: Bases, ys: Bases) -> Bases:
    """Intersection of two sets of closed intervals."""
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < len(xs) and j < len(ys):
        lo = max(xs[i][0], ys[j][0])
        hi = min(xs[i][1], ys[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if xs[i][1] < ys[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def subtract_all(xs: Bases, cuts: Iterable[tuple[int, int]]) -> Bases:
    """``xs`` (ascending, as bases are) without every closed interval of ``cuts``
    (lo > hi: none), each interval of ``xs`` cut where they hold. The cuts are merged
    first: taking each alone was quadratic in the cuts, seconds for the blocks of a
    tile beside hundreds of fixed ones."""
    merged: list[list[int]] = []
    for lo, hi in sorted(cut for cut in cuts if cut[0] <= cut[1]):
        if merged and lo <= merged[-1][1] + 1:  # touching or overlapping: one cut
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    if not merged:
        return xs
    out: list[tuple[int, int]] = []
    i = 0
    for a, b in xs:
        while i < len(merged) and merged[i][1] < a:  # cuts wholly below this interval
            i += 1
        j, x = i, a
        while j < len(merged) and merged[j][0] <= b:
            if merged[j][0] > x:
                out.append((x, merged[j][0] - 1))
            x = max(x, merged[j][1] + 1)
            j += 1
        if x <= b:
            out.append((x, b))
    return tuple(out)
