"""IREE's static packer (``packStaticSlicesGreedily`` in LayoutSlices.cpp), reimplemented.

The slices are taken in the pack's order. Each goes into the gap below a
reservation it lives with that is the smallest among those it fits in (the
gaps scanned from the lowest reservation up, only reservations whose slices
intersect it counting), or else on top of them all. Its size is rounded up to
the range alignment and its offset to the offset alignment; the slab is the
highest end, rounded up to the range alignment.

Two details of IREE's loop are kept because they decide offsets: a gap's fit
is compared as (next reservation - aligned start) but remembered as (next
reservation - unaligned start), and a new reservation is listed before those
already at its offset.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from tilefit.toolchains.iree.packs import Slice

UNASSIGNED = 1 << 63


def align(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


@dataclass(frozen=True, slots=True)
class Layout:
    """A pack laid out: each slice's offset (by its index in the pack) and the slab."""

    offsets: tuple[int, ...]
    slab: int


def pack_greedily(slices: Sequence[Slice], offset_alignment: int, range_alignment: int) -> Layout:
    """The offsets IREE gives the static slices, in the order given, and the slab."""
    reserved: list[tuple[int, int, Slice]] = []  # (offset, aligned size, slice), by offset
    offsets = [0] * len(slices)
    high = 0
    for position, piece in enumerate(slices):
        assert piece.size is not None, "dynamic slices are not packed here"
        size = align(piece.size, range_alignment)
        best, best_fit, current = UNASSIGNED, UNASSIGNED, 0
        for offset, other_size, other in reserved:
            if not other.intersects(piece):
                continue
            start = align(current, offset_alignment)
            if start + size <= offset and offset - start < best_fit:
                best, best_fit = start, offset - current
            current = max(current, offset + other_size)
        if best == UNASSIGNED:
            best = align(current, offset_alignment)
        at = bisect_left([r[0] for r in reserved], best)
        reserved.insert(at, (best, size, piece))
        offsets[position] = best
        high = max(high, best + size)
    return Layout(tuple(offsets), align(high, range_alignment))
