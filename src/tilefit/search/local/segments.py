"""Placements by segments: the available memory cut at its reserved gaps, each searched alone.

The canonical kernel decides one contiguous range quickly, but across ranges
split by reserved gaps it thrashes: which blocks go below a gap and which above
is a bin-assignment choice that the (offset, rank) order makes late and badly
(a block cannot straddle a gap, so the top of each range is wasted in ways
section inference does not see). This route makes that choice first:

1. the **segments** are the available ranges, adjacent ones joined;
2. every free block is **assigned** to one segment where it has valid bases,
   largest area first, to the segment left with the most room over its
   lifetime (bytes per step, less a margin that grows for a segment that
   failed before), with a little noise from the round's seed;
3. each segment is **searched alone** by the kernel, its blocks' bases cut to
   the segment, the blocks already standing (fixed ones and the segments
   solved before) as obstacles, so conflict edges across segments are kept.

Cutting bases asks more than the capture, so every answer is a placement.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, replace

import numpy as np

from tilefit.model.capture import Memory
from tilefit.search.blocks import Bases, Model, intersect
from tilefit.search.exact.solve import Budget, search_free
from tilefit.search.local.restriction import rigid_restriction
from tilefit.search.routes import SOLVED

MARGIN_STEP = 0.01
"""Of a segment's bytes: the room a failed segment must keep free at every step next time."""

NOISE = 0.25
"""Spread of the random factor on each block's area in the assignment order."""


@dataclass
class Assigner:
    """What every round of the route shares on one model."""

    model: Model
    segments: tuple[tuple[int, int], ...]
    margins: list[float]
    column: dict[int, int]  # step where some piece starts or ends -> its column in the room table

    @classmethod
    def of(cls, model: Model, memory: Memory) -> Assigner:
        joined: list[tuple[int, int]] = []
        for r in sorted(memory.ranges, key=lambda r: r.start):
            if joined and joined[-1][1] == r.start:
                joined[-1] = (joined[-1][0], r.end)
            else:
                joined.append((r.start, r.end))
        points = sorted({t for b in model.blocks for p in b.pieces for t in (p.start, p.end)})
        column = {t: i for i, t in enumerate(points)}
        return cls(model, tuple(joined), [0.0] * len(joined), column)

    def solve(
        self, fixed: dict[int, int], rng: random.Random, deadline: float, nodes: int
    ) -> dict[int, int] | None:
        """Bases for every block, with ``fixed`` kept; None when a segment fails (its
        margin then grows, so the next assignment leaves it more room)."""
        if len(self.segments) < 2:
            return None
        assigned = self._assign(fixed, rng)
        if assigned is None:
            return None
        model = self.model
        blocks = list(model.blocks)
        for k, j in assigned.items():
            lo, hi = self.segments[j]
            blocks[k] = replace(
                blocks[k], bases=intersect(blocks[k].bases, ((lo, hi - blocks[k].size),))
            )
        cut = replace(model, blocks=tuple(blocks))
        standing = dict(fixed)
        for j in range(len(self.segments)):
            free = [k for k, s in assigned.items() if s == j]
            if not free:
                continue
            budget = Budget(max(0.0, deadline - time.monotonic()), nodes)
            outcome = search_free(rigid_restriction(cut, standing), free, standing, budget)
            if outcome.status != SOLVED or outcome.bases is None:
                self.margins[j] += MARGIN_STEP
                return None
            standing = dict(outcome.bases)
        return standing

    def _assign(self, fixed: dict[int, int], rng: random.Random) -> dict[int, int] | None:
        """Free block -> segment index, or None when some block has no segment at all."""
        model = self.model
        at = self.column
        room = np.array(
            [[hi - lo] * max(len(at) - 1, 1) for lo, hi in self.segments], dtype=np.int64
        )
        for k, base in fixed.items():
            for p in model.blocks[k].pieces:
                j = self._segment_of(base + p.offset)
                if j is not None:
                    room[j, at[p.start] : at[p.end]] -= p.size
        margin = [
            int(m * (hi - lo)) for m, (lo, hi) in zip(self.margins, self.segments, strict=True)
        ]
        free = [k for k in range(len(model.blocks)) if k not in fixed]
        area = {
            k: model.blocks[k].size
            * (model.blocks[k].end - model.blocks[k].start)
            * (1.0 + NOISE * rng.random())
            for k in free
        }
        out: dict[int, int] = {}
        for k in sorted(free, key=lambda k: (-area[k], k)):
            block = model.blocks[k]
            a, b = at[block.start], at[block.end]
            best: tuple[int, float, int] | None = None
            for j, (lo, hi) in enumerate(self.segments):
                if not _has_base(
                    intersect(block.bases, ((lo, hi - block.size),)), block.residue, block.modulus
                ):
                    continue
                slack = int(room[j, a:b].min()) - block.size - margin[j]
                key = (slack, rng.random(), j)
                if best is None or key > best:
                    best = key
            if best is None:
                return None
            j = best[2]
            out[k] = j
            room[j, a:b] -= block.size
        return out

    def _within(self, bases: Bases, size: int, j: int) -> Bases:
        """The bases that keep a block of ``size`` bytes inside segment ``j``."""
        lo, hi = self.segments[j]
        return intersect(bases, ((lo, hi - size),))

    def _segment_of(self, address: int) -> int | None:
        for j, (lo, hi) in enumerate(self.segments):
            if lo <= address < hi:
                return j
        return None


def _has_base(bases: Bases, residue: int, modulus: int) -> bool:
    return any(lo + (residue - lo) % modulus <= hi for lo, hi in bases)
