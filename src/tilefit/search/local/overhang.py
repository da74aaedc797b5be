"""The requests above a target top sunk below it: the first half of route ``sink``.

A greedy pass that ends a little above the live bound leaves, at its busiest step, holes
below its top exactly as large as what it put above the bound (the live bytes there are
the bound). The requests reaching above a target top (the *overhang*) are moved below
it one by one, largest first, each to the offset where it meets the fewest bytes x steps
of the requests already there; those it meets are *evicted*: taken out, to be placed
again around everything else (``tilefit.search.sat.neighbourhood``). At a hole of the
busiest step a request meets nothing there, and what it meets at other steps is what the
hole is filled with then, usually short-lived: the cost prefers exactly that. A request
once sunk is never met again; one sinks nowhere when every offset below the target
meets one already sunk.

Why bytes x steps: evicting a request alive for a few steps leaves a small problem
around a few steps; evicting one alive for half the program couples everything it
crossed (``benchmarks/README.md``, "Issue 49": the long-lived buffers decide).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import NDArray

    from tilefit.engine.uniform import Ints, UniformArrays

    Floats = NDArray[np.float64]


@dataclass(frozen=True)
class Sunk:
    """Every request's offset with the overhang below the target, and the requests it
    evicted (capture indices, ascending): their offsets are stale until placed again."""

    offsets: Ints
    overhang: Ints  # the requests moved, capture indices
    evicted: Ints


def sink(
    uniform: UniformArrays, offsets: Ints, target: int, stop: Callable[[], bool]
) -> Sunk | None:
    """The overhang of ``offsets`` above ``target`` sunk below it, or None when one of its
    requests has no offset below ``target`` that misses every request sunk before it (or
    ``stop`` says the time is up)."""
    sizes, starts, ends = uniform.sizes, uniform.starts, uniform.ends
    moved = offsets.copy()
    over = np.flatnonzero(offsets + sizes > target)
    over = over[np.lexsort((starts[over] - ends[over], -sizes[over]))]  # largest, longest first
    present = np.ones(len(sizes), np.bool_)
    present[over] = False
    sunk = np.zeros(len(sizes), np.bool_)
    # Float: a million requests' bytes x steps may sum past int64.
    weight = sizes.astype(np.float64) * (ends - starts)
    for k in over:
        if stop():
            return None
        meets = np.flatnonzero((present | sunk) & (starts < ends[k]) & (starts[k] < ends))
        weights = np.where(sunk[meets], -1, weight[meets])
        size, alignment = int(sizes[k]), int(uniform.alignments[k])
        at = _cheapest(moved[meets], sizes[meets], weights, size, alignment, uniform.low, target)
        if at is None:
            return None
        moved[k] = at
        hit = meets[(moved[meets] < at + sizes[k]) & (at < moved[meets] + sizes[meets])]
        present[hit] = False
        sunk[k] = True
    evicted = np.flatnonzero(~present & ~sunk)
    return Sunk(moved, np.sort(over), evicted)


def _cheapest(
    lows: Ints, sizes: Ints, weights: Floats, size: int, alignment: int, low: int, target: int
) -> int | None:
    """The lowest aligned offset in [low, target - size] where a request of ``size`` meets
    the least weight of the spans [lows, lows + sizes) (a weight of -1: never met), or None.

    The cost is constant between the points where a span starts or stops being met (a
    request at x meets [a, b) when a - size < x < b), so one sweep over those points gives
    it everywhere; in each piece the lowest aligned offset stands for the piece."""
    most = target - size
    first = -(-low // alignment) * alignment
    if first > most:
        return None
    barred = (weights < 0).astype(np.int64)
    paid = np.where(weights < 0, 0.0, weights)
    points = np.concatenate((lows - size + 1, lows + sizes, [first]))
    order = np.argsort(points, kind="stable")
    points = points[order]
    cost = np.cumsum(np.concatenate((paid, -paid, [0]))[order])
    blocked = np.cumsum(np.concatenate((barred, -barred, [0]))[order])
    ends = np.append(points[1:], most + 1)
    at = np.maximum(points, first)
    at = -(-at // alignment) * alignment
    usable = (blocked == 0) & (at < ends) & (at <= most)
    if not usable.any():
        return None
    candidates = np.flatnonzero(usable)
    best = candidates[np.argmin(cost[candidates])]  # argmin takes the first: the lowest
    return int(at[best])
