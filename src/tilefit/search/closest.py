"""The closest placement found: how many bytes more than available would make the tile fit.

When neither a placement nor a proof is found in time, the user still wants
to know how close the tile is. The capture is **extended**: an overflow range
open to every class is added above the memory's top, cut into memory
elements as wide as the top one (wider when the requests are huge, so that
there are never many more than ``OVERFLOW_ELEMENTS``), so that every
constraint keeps its meaning.
Greedy passes (the 16 strategies and the constraint-aware orders of
``tilefit.search.local.contention``) place every request in the extended memory,
and so does the search's best partial placement once the blocks it left out
are put above the top (``tilefit.search.local.partial``); the one reaching least
far above the old top wins. Its overflow (bytes above
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
from tilefit.model.placement import Placement, placement_top
from tilefit.search.blocks import build_model
from tilefit.search.decision import Partial
from tilefit.search.local.contention import Features
from tilefit.search.local.partial import finish
from tilefit.search.params import DEFAULT, ClosestParams
from tilefit.search.routes import SEARCH_PARTIAL

OVERFLOW_RANGE = "overflow"
OVERFLOW_ELEMENTS = 1024
"""Memory elements in the overflow, at most about (plus one per request): a rule of the
extended capture, which the referee must see as the placement saw it, not a tuning
value (``SearchParams`` holds those)."""


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


def wide_enough(capture: Capture) -> Capture | None:
    """The capture extended by room for every request side by side, each padded to its
    alignment and an element; None when that is beyond the numbers a capture may hold."""
    width = overflow_width(capture)
    extra = sum(r.size + r.alignment for r in capture.requests) + width * (
        len(capture.requests) + 1
    )
    if capture.memory.size + extra >= INT_LIMIT:
        return None
    return extended(capture, extra)


def closest(
    capture: Capture,
    time_limit: float = 2.0,
    seed: int = 0,
    partial: Partial | None = None,
    params: ClosestParams = DEFAULT.closest,
) -> Closest | None:
    """The placement reaching least far above the top, or None if none fits even so: the
    search's best ``partial`` placement finished above it (``tilefit.search.local.partial``),
    or a greedy pass (the 16 strategies, then ``params.greedy_rounds`` constraint-aware
    ones)."""
    deadline = time.monotonic() + time_limit
    wide = wide_enough(capture)
    if wide is None:
        return None
    best: Closest | None = None
    if partial is not None and (finished := finish(capture, wide, partial)) is not None:
        best = _closest(capture, SEARCH_PARTIAL, finished)
    prepared = Prepared.of(wide)
    features = Features.of(build_model(wide), prepared)
    rng = random.Random(seed)
    strategies = [*STRATEGIES, *(features.strategy(r, rng) for r in range(params.greedy_rounds))]
    for strategy in strategies:
        if best is not None and (best.overflow == 0 or time.monotonic() >= deadline):
            break
        attempt = run_strategy(prepared, strategy)
        if attempt.fits and attempt.placement is not None:
            found = _closest(capture, attempt.strategy.name, attempt.placement)
            if best is None or found.overflow < best.overflow:
                best = found
    return best


def _closest(capture: Capture, name: str, placement: Placement) -> Closest:
    reach = placement_top(capture, placement.offsets)
    overflow = max(0, reach - capture.memory.size)
    return Closest(overflow, capture.available + overflow, name, placement)
