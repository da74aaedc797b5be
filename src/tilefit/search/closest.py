"""The closest placement found: how many bytes more than available would make the tile fit.

When neither a placement nor a proof is found in time, the user still wants
to know how close the tile is. The capture is **extended**: an overflow range
open to every class is added above the memory's top, cut into memory
elements as wide as the top one (wider when the requests are huge, so that
there are never many more than ``OVERFLOW_ELEMENTS``), so that every
constraint keeps its meaning.
Greedy passes (the 16 strategies and the constraint-aware orders of
``tilefit.search.contention``) place every request in the extended memory;
the one reaching least far above the old top wins. Its overflow (bytes above
the old top) is what the tile lacks under that placement; the caller's
referee checks it against ``extended(capture, overflow)`` (diagnose does).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, replace

from tilefit.engine.attempt import Prepared, run_strategy
from tilefit.engine.strategy import STRATEGIES
from tilefit.model.capture import Capture, Memory, Range
from tilefit.model.errors import INT_LIMIT
from tilefit.model.placement import Placement
from tilefit.search.contention import Features
from tilefit.search.model import build_model

OVERFLOW_RANGE = "overflow"
OVERFLOW_ELEMENTS = 1024
"""Memory elements in the overflow, at most about (plus one per request)."""

GREEDY_ROUNDS = 8
"""Constraint-aware greedy passes tried beside the 16 strategies."""


@dataclass(frozen=True)
class Closest:
    """A checked placement of every request in the memory extended by ``overflow`` bytes."""

    overflow: int  # bytes placed above the memory's top: what the tile lacks under it
    storage: int  # available storage plus the overflow
    strategy: str  # the greedy pass that made it
    placement: Placement  # valid for ``extended(capture, overflow)``


def extended(capture: Capture, extra: int) -> Capture:
    """The capture with ``extra`` bytes of memory above its top, open to every class."""
    memory = capture.memory
    if extra <= 0:
        return capture
    width = overflow_width(capture)
    elements = (*memory.elements, *range(memory.size, memory.size + extra, width))
    grown = Memory(
        size=memory.size + extra,
        ranges=(*memory.ranges, Range(memory.size, memory.size + extra, OVERFLOW_RANGE)),
        elements=elements,
        # With no interleaved region, interleaved requests may use the overflow alone.
        interleaved_offset=memory.interleaved_start,
    )
    return replace(capture, memory=grown)


def overflow_width(capture: Capture) -> int:
    """The width of the overflow's memory elements: the top element's, or wider so that
    there are never more than about OVERFLOW_ELEMENTS of them however large the requests
    (a fixed grid for a capture, so the referee sees the elements the placement saw)."""
    memory = capture.memory
    total = sum(r.size + r.alignment for r in capture.requests)
    return max(memory.size - memory.elements[-1], -(-total // OVERFLOW_ELEMENTS), 1)


def closest(capture: Capture, time_limit: float = 2.0, seed: int = 0) -> Closest | None:
    """The greedy placement reaching least far above the top, or None if none fits even so."""
    deadline = time.monotonic() + time_limit
    memory = capture.memory
    # Room for every request side by side, each padded to its alignment and an element.
    width = overflow_width(capture)
    extra = sum(r.size + r.alignment for r in capture.requests) + width * (
        len(capture.requests) + 1
    )
    if memory.size + extra >= INT_LIMIT:  # beyond the numbers a capture may hold
        return None
    wide = extended(capture, extra)
    prepared = Prepared.of(wide)
    features = Features.of(build_model(wide), prepared)
    rng = random.Random(seed)
    strategies = [*STRATEGIES, *(features.strategy(r, rng) for r in range(GREEDY_ROUNDS))]
    best = None
    for strategy in strategies:
        attempt = run_strategy(prepared, strategy)
        if attempt.fits and (best is None or attempt.peak_address < best.peak_address):
            best = attempt
        if time.monotonic() >= deadline and best is not None:
            break
    if best is None or best.placement is None:
        return None
    overflow = max(0, best.peak_address - memory.size)
    return Closest(overflow, capture.available + overflow, best.strategy.name, best.placement)
