"""The search's best partial placement, finished above the top: a closer placement.

An annealing search that runs out of time holds a valid placement of every
block but a few (its best state). Put the blocks it left out in the overflow
that ``tilefit.search.closest.extended`` adds above the memory's top, and the
whole tile is placed in that much more memory. Only the left-out blocks
overflow, so this usually lacks far fewer bytes than the best greedy pass,
which may leave a tenth of the tile above the top.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from tilefit.model.capture import Capture
from tilefit.model.placement import Placement
from tilefit.search.blocks import Block, SearchModel, build_model
from tilefit.search.outcome import Partial


def partial_of(model: SearchModel, bases: Mapping[int, int], left_out: int) -> Partial:
    """The partial placement of the blocks numbered in ``bases``."""
    return Partial(left_out, model.offsets(bases))


def finish(
    capture: Capture, wide: Capture, partial: Partial, model: SearchModel | None = None
) -> Placement | None:
    """Every request of ``capture`` in ``wide`` (the capture extended above its top): the
    placed ones where ``partial`` has them, each left-out block at the lowest base above
    the top clear of the others (largest first). None when a block has no such base.
    ``model``: ``wide``'s, when the caller built it already."""
    model = build_model(wide) if model is None else model
    top = capture.memory.size
    at = model.bases_of(partial.offsets)
    left = [k for k in range(len(model.blocks)) if k not in at]
    left.sort(key=lambda k: (-model.blocks[k].size, k))
    # The stacked blocks' lifetimes, to find those alive beside the next one at once.
    starts = np.array([model.blocks[k].start for k in left], dtype=np.int64)
    ends = np.array([model.blocks[k].end for k in left], dtype=np.int64)
    for n, k in enumerate(left):
        block = model.blocks[k]
        beside = [
            left[i] for i in np.flatnonzero((starts[:n] < block.end) & (ends[:n] > block.start))
        ]
        base = _lowest(model, k, top, at, beside)
        if base is None:
            return None
        at[k] = base
    return model.placement(capture, at)


def _lowest(
    model: SearchModel,
    k: int,
    floor: int,
    at: Mapping[int, int],
    stacked: Sequence[int],
) -> int | None:
    """The lowest valid base of block ``k`` from ``floor`` up that overlaps no block of
    ``stacked`` (placed in ``at``) and shares no element with a placed conflict partner.

    The bases the stacked blocks rule out are gathered once, as intervals sorted by
    their start, and the base only rises: time about linear in the stacked blocks,
    where retrying every block after each clash took minutes with thousands left out."""
    block = model.blocks[k]
    blocked = sorted(_ruled_out(model, k, at, stacked))
    i, reach = 0, floor
    base = floor
    while True:
        aligned = _valid_from(block, base)
        if aligned is None:
            return None
        base = aligned
        # reach: the end of the intervals begun at or below base; past base, it is inside one.
        while i < len(blocked) and blocked[i][0] <= base:
            reach = max(reach, blocked[i][1])
            i += 1
        if reach > base:
            base = reach
            continue
        past = _partner_clash(model, k, base, at)
        if past is None:
            return base
        base = past


def _ruled_out(
    model: SearchModel, k: int, at: Mapping[int, int], stacked: Sequence[int]
) -> list[tuple[int, int]]:
    """Bases [lo, hi) of block ``k`` at which a piece shares a step and a byte with a piece
    of a block of ``stacked`` (those alive beside it)."""
    block = model.blocks[k]
    out: list[tuple[int, int]] = []
    for j in stacked:
        other = model.blocks[j]
        for p in block.pieces:
            for q in other.pieces:
                if p.start < q.end and q.start < p.end:
                    qlo = at[j] + q.offset
                    # base + p.offset < qlo + q.size and qlo < base + p.offset + p.size
                    out.append((qlo - p.offset - p.size + 1, qlo + q.size - p.offset))
    return out


def _valid_from(block: Block, x: int) -> int | None:
    """The lowest base at or above ``x`` in the block's valid set and residue."""
    for lo, hi in block.bases:
        y = max(x, lo)
        y += (block.residue - y) % block.modulus
        if y <= hi:
            return y
    return None


def _partner_clash(model: SearchModel, k: int, base: int, at: Mapping[int, int]) -> int | None:
    """A base above the first element block ``k`` at ``base`` shares with a placed
    conflict partner, or None if it shares none."""
    for mine, theirs in model.partners(k):
        if theirs.block not in at:
            continue
        lo, hi = model.side_elements(mine, base)
        their_lo, their_hi = model.side_elements(theirs, at[theirs.block])
        if lo <= their_hi and their_lo <= hi:
            # Up to the element after the partner's last: its elements are then apart.
            return max(base + 1, model.elements[their_hi + 1] - mine.offset)
    return None
