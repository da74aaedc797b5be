"""Hard tiles of a second kind: requests like a program's, placed one by one at random.

``planted`` cuts the whole plane into leaves, so its answer is a perfect tiling.
A real tile is looser: its requests have a program's lifetimes (weights live
throughout, activations for a while, scratch for a step or two) and the
allocator that once placed them left holes. This family builds that:

* requests are drawn by kind (resident, output, activation, scratch), with
  alignments up to 64, classes (only scratch may use the host aperture) and
  interleaved requests that must lie above the interleaved offset;
* sequences of 2-6 members, each member with its own lifetime, placed as one
  contiguous block;
* each request or sequence, in a random order, goes to the lowest offset where
  it fits or, sometimes, to a random one; a request that fits nowhere is left
  out, until the drawing stops;
* conflict edges join sides whose placed bytes touch disjoint memory elements,
  mostly sides living at the same time;
* then requests are removed at random until the live peak is ``density`` of
  the available storage, as in ``planted``.

The placement the drawing made is valid by construction and is returned with
the capture. Everything is drawn from ``random.Random(recipe.seed)``.

>>> capture, placement = scattered_tile(ScatteredRecipe(requests=600, density=0.9, seed=1))
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

import numpy as np

from tilefit.generate.planted import (
    MEMORY,
    SCRATCH,
    Leaf,
    PlantedRecipe,
    conflict_edges,
    finish_tile,
)
from tilefit.model.capture import Capture, Request, Sequence
from tilefit.model.placement import Placement

CELL = 8  # bytes per cell of the occupancy grid; every size and alignment is a multiple
ALIGNMENTS = (8, 16, 32, 64)
ALIGNMENT_WEIGHTS = (3, 2, 1, 2)
KINDS = ("resident", "output", "activation", SCRATCH)
KIND_WEIGHTS = (0.08, 0.07, 0.6, 0.25)
MISSES = 200  # consecutive draws that fit nowhere before the drawing stops
SCALE_REQUESTS = 450  # the sizes below are drawn for about this many requests
OVERDRAW = 0.04  # the drawing goes on until the live peak is this much above the target
REACHABLE = 0.985  # about the densest a random drawing gets: denser targets stop here


@dataclass(frozen=True, slots=True)
class ScatteredRecipe:
    """The knobs of one scattered tile."""

    requests: int = 600  # about this many requests are left after thinning
    density: float = 0.9
    seed: int = 0
    horizon: int = 96
    sequence_share: float = 0.2  # of the requests, members of a sequence
    conflict_share: float = 0.04  # conflict edges per request
    interleaved_share: float = 0.3  # of the requests drawn as interleaved
    lowest_share: float = 0.9  # placements at the lowest fitting offset; the rest anywhere
    tolerance: float = 0.005


def scattered_tile(recipe: ScatteredRecipe) -> tuple[Capture, Placement]:
    """A capture and a valid placement of it, at (at most) the recipe's density."""
    if not 0 < recipe.density <= 1:
        raise ValueError(f"density {recipe.density} must lie in (0, 1]")
    rng = random.Random(recipe.seed)
    grid = _Grid(recipe.horizon)
    requests: list[Request] = []
    leaves: list[Leaf] = []
    sequences: list[Sequence] = []
    misses = 0
    # Draw past the target (thinning brings the peak down to it), or until nothing fits.
    enough = min(REACHABLE, recipe.density + OVERDRAW) * MEMORY.available
    cap = round(1.5 * recipe.requests / recipe.density)
    while misses < MISSES and len(requests) < cap and grid.peak() < enough:
        members = rng.randint(2, 6) if rng.random() < recipe.sequence_share / 3.5 else 1
        drawn = [_draw(rng, recipe, len(requests) + k) for k in range(members)]
        if members > 1:  # a sequence's members share its alignment, class and region
            first = drawn[0]
            # a member lies the sizes below it above the first: aligned as far as those allow
            below = [sum(q.size for q in drawn[:k]) for k in range(members)]
            drawn = [
                replace(
                    q,
                    alignment=min(first.alignment, (b & -b) or first.alignment),
                    cls=first.cls,
                    interleaved=first.interleaved,
                )
                for q, b in zip(drawn, below, strict=True)
            ]
        lo = grid.place(rng, recipe, drawn)
        if lo is None:
            misses += 1
            continue
        misses = 0
        for q in drawn:
            requests.append(q)
            leaves.append(Leaf(lo, lo + q.size, q.start, q.end, False))
            lo += q.size
        if members > 1:
            sequences.append(Sequence(f"s{len(sequences):03d}", tuple(q.id for q in drawn)))
    planted = PlantedRecipe(
        requests=recipe.requests,
        density=recipe.density,
        seed=recipe.seed,
        horizon=recipe.horizon,
        conflict_share=recipe.conflict_share,
        tolerance=recipe.tolerance,
    )
    conflicts = conflict_edges(rng, planted, requests, leaves, sequences)
    offsets = {q.id: leaf.lo for q, leaf in zip(requests, leaves, strict=True)}
    return finish_tile(rng, planted, "scattered", requests, offsets, sequences, conflicts)


def _draw(rng: random.Random, recipe: ScatteredRecipe, k: int) -> Request:
    horizon = recipe.horizon
    scale = min(SCALE_REQUESTS / recipe.requests, 2.0)  # more requests wanted: smaller ones
    kind = rng.choices(KINDS, KIND_WEIGHTS)[0]
    if kind == "resident":
        start, end = 0, horizon
        size = _size(rng, 1024 * scale, 32_768 * scale)
    elif kind == "output":
        start = rng.randrange(horizon // 2, horizon)
        end = horizon
        size = _size(rng, 512 * scale, 16_384 * scale)
    elif kind == "activation":
        start = rng.randrange(horizon - 1)
        end = min(horizon, start + 1 + int(rng.expovariate(1 / 16)))
        size = _size(rng, 256 * scale, 32_768 * scale)
    else:
        start = rng.randrange(horizon)
        end = min(horizon, start + rng.randint(1, 2))
        size = _size(rng, 128 * scale, 8192 * scale)
    alignment = rng.choices(ALIGNMENTS, ALIGNMENT_WEIGHTS)[0]
    interleaved = kind != SCRATCH and rng.random() < recipe.interleaved_share
    return Request(f"r{k:04d}", size, start, end, alignment, kind, interleaved)


def _size(rng: random.Random, low: float, high: float) -> int:
    """Log-uniform in [low, high], a multiple of CELL."""
    value = low * math.exp(math.log(high / low) * rng.random())
    return max(CELL, round(value / CELL) * CELL)


class _Grid:
    """Which cells of memory are taken at each step: where a block of members may go."""

    def __init__(self, horizon: int) -> None:
        self.taken = np.zeros((horizon, MEMORY.size // CELL), dtype=bool)
        self.live = np.zeros(horizon, dtype=np.int64)  # bytes taken at each step

    def peak(self) -> int:
        return int(np.max(self.live))

    def place(
        self, rng: random.Random, recipe: ScatteredRecipe, members: list[Request]
    ) -> int | None:
        """Mark the members stacked from a chosen offset; that offset, or None if none fits."""
        first = members[0]
        width = sum(q.size for q in members) // CELL
        if width > self.taken.shape[1]:
            return None
        ok = np.zeros(self.taken.shape[1] + 1, dtype=bool)  # ok[c]: the block may start at c
        for lo, hi in MEMORY.allowed(first.cls, first.interleaved):
            step = first.alignment // CELL
            starts = np.arange(-(-lo // first.alignment) * step, (hi // CELL) - width + 1, step)
            ok[starts] = True
        shift = 0
        for q in members:  # each member's cells must be free over its own lifetime
            cells = q.size // CELL
            free = np.asarray(~self.taken[q.start : q.end].any(axis=0), dtype=np.bool_)
            fits = _runs_at_least(free, cells)  # this member would sit ``shift`` cells up
            ok[: len(ok) - 1 - shift] &= fits[shift:]
            ok[len(ok) - 1 - shift :] = False
            shift += cells
        candidates = np.flatnonzero(ok)
        if not len(candidates):
            return None
        if rng.random() < recipe.lowest_share:
            cell = int(candidates[0])
        else:
            cell = int(candidates[rng.randrange(len(candidates))])
        at = cell
        for q in members:
            self.taken[q.start : q.end, at : at + q.size // CELL] = True
            self.live[q.start : q.end] += q.size
            at += q.size // CELL
        return cell * CELL


def _runs_at_least(free: np.ndarray, cells: int) -> np.ndarray:
    """fits[c]: the cells [c, c + cells) are all free."""
    n = len(free)
    out = np.zeros(n, dtype=bool)
    if cells > n:
        return out
    prefix = np.concatenate(([0], np.cumsum(free, dtype=np.int64)))
    out[: n - cells + 1] = (prefix[cells:] - prefix[: n - cells + 1]) == cells
    return out
