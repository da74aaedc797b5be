"""The search's best partial placement, finished above the top: a closer placement.

An annealing search that runs out of time holds a valid placement of every
block but a few (its best state). Put the blocks it left out in the overflow
that ``tilefit.search.closest.extended`` adds above the memory's top, and the
whole tile is placed in that much more memory. Only the left-out blocks
overflow, so this usually lacks far fewer bytes than the best greedy pass,
which may leave a tenth of the tile above the top.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tilefit.model.capture import Capture
from tilefit.model.placement import Placement
from tilefit.search.blocks import Block, Model, build_model


@dataclass(frozen=True)
class Partial:
    """Offsets for the requests of every block but those left out."""

    left_out: int  # area (bytes x steps) of the blocks left out
    offsets: Mapping[str, int]  # request id -> offset, for the blocks placed


def partial_of(model: Model, bases: Mapping[int, int], left_out: int) -> Partial:
    """The partial placement of the blocks numbered in ``bases``."""
    return Partial(left_out, model.offsets(bases))


def better(first: Partial | None, second: Partial | None) -> Partial | None:
    """The one leaving out less (the first on a tie)."""
    if first is None or (second is not None and second.left_out < first.left_out):
        return second
    return first


def finish(capture: Capture, wide: Capture, partial: Partial) -> Placement | None:
    """Every request of ``capture`` in ``wide`` (the capture extended above its top): the
    placed ones where ``partial`` has them, each left-out block at the lowest base above
    the top clear of the others (largest first). None when a block has no such base."""
    model = build_model(wide)
    top = capture.memory.size
    at = model.bases_of(partial.offsets)
    left = [k for k in range(len(model.blocks)) if k not in at]
    left.sort(key=lambda k: (-model.blocks[k].size, k))
    stacked: list[int] = []
    for k in left:
        base = _lowest(model, k, top, at, stacked)
        if base is None:
            return None
        at[k] = base
        stacked.append(k)
    return model.placement(capture, at)


def _lowest(
    model: Model, k: int, floor: int, at: Mapping[int, int], stacked: list[int]
) -> int | None:
    """The lowest valid base of block ``k`` from ``floor`` up that overlaps no block of
    ``stacked`` and shares no element with a placed partner: each clash moves the base
    up past it, so the loop ends."""
    block = model.blocks[k]
    base = floor
    while True:
        aligned = _valid_from(block, base)
        if aligned is None:
            return None
        base = aligned
        past = _clash(model, k, base, at, stacked)
        if past is None:
            return base
        base = past


def _valid_from(block: Block, x: int) -> int | None:
    """The lowest base at or above ``x`` in the block's valid set and residue."""
    for lo, hi in block.bases:
        y = max(x, lo)
        y += (block.residue - y) % block.modulus
        if y <= hi:
            return y
    return None


def _clash(
    model: Model, k: int, base: int, at: Mapping[int, int], stacked: list[int]
) -> int | None:
    """A base above the first clash of block ``k`` at ``base``, or None if it is clear."""
    for j in stacked:
        hit = model.collision(k, base, j, at[j])
        if hit is not None:
            p, q = hit
            return at[j] + q.offset + q.size - p.offset  # p just above q
    for mine, theirs in model.partners(k):
        if theirs.block not in at:
            continue
        lo, hi = model.side_elements(mine, base)
        their_lo, their_hi = model.side_elements(theirs, at[theirs.block])
        if lo <= their_hi and their_lo <= hi:
            # Up to the element after the partner's last: its elements are then apart.
            return max(base + 1, model.elements[their_hi + 1] - mine.offset)
    return None
