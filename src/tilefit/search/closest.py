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
far above the old top wins. Then ``descend`` (route ``Descent``) minimises the top from
it: annealing probes in less extra memory, each started from the best placement so far, which
ends closer than stacking what the search left out above the top (a quarter to a
half closer on planted tiles of 90-95%: benchmarks/README.md, "The bracket and the
levers"). Its overflow (bytes above the old top) is what the tile lacks under that
placement, and its top the upper end of the bracket of the least top
(``tilefit.search.bracket``); the caller's referee checks it against
``extended(capture, overflow)`` (diagnose does).
"""

from __future__ import annotations

import itertools
import random
import time
from dataclasses import dataclass, replace
from typing import ClassVar

from tilefit.engine.attempt import Prepared, run_strategy
from tilefit.engine.strategy import STRATEGIES
from tilefit.model.capture import Capture, Memory, Range
from tilefit.model.deadline import Deadline
from tilefit.model.errors import INT_LIMIT
from tilefit.model.placement import Placement, placement_top
from tilefit.search.blocks import build_model
from tilefit.search.local.contention import Features
from tilefit.search.local.partial import finish
from tilefit.search.outcome import Partial
from tilefit.search.params import DEFAULT, AnnealParams, ClosestParams
from tilefit.search.routes import CLOSEST, SEARCH_DESCENT, SEARCH_PARTIAL, Route, route

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

    @property
    def route(self) -> str | None:
        """The route that made it (``descent``, or ``sink`` on a uniform capture: its
        strategy is ``search:ROUTE``), or None for a greedy pass or a finished partial
        placement: what decides the tile when it fits below the top."""
        if self.strategy == SEARCH_DESCENT:
            return Descent.name
        name = self.strategy.removeprefix("search:")
        placing = name != self.strategy and self.strategy != SEARCH_PARTIAL
        return name if placing and route(name).places else None


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


class Descent(Route):
    """The closest placement's descent (``descend``): it decides when a probe places every
    block below the memory's top. Not a route of the portfolio: the ladder's closest rung
    runs it (``tilefit.verdicts.ladder``), where the search and its ``anneal`` route run."""

    name = "descent"
    member = CLOSEST
    rank = 10
    proves, places = False, True
    says = "annealing in less memory ended below the top"
    strategy: ClassVar[str | None] = SEARCH_DESCENT


def closest(
    capture: Capture,
    deadline: Deadline,
    seed: int = 0,
    partial: Partial | None = None,
    params: ClosestParams = DEFAULT.closest,
    anneal: AnnealParams = DEFAULT.anneal,
    descent: bool = True,
) -> Closest | None:
    """The placement reaching least far above the top, or None if none fits even so: the
    search's best ``partial`` placement finished above it (``tilefit.search.local.partial``),
    or a greedy pass (the 16 strategies, then ``params.greedy_rounds`` constraint-aware
    ones), then, with ``descent`` (route ``Descent``), lowered by ``descend`` by
    ``deadline``."""
    # Half the time for the passes, the rest for the descent that lowers their best.
    passes = deadline.until(time.monotonic() + deadline.left() / 2) if descent else deadline
    best, setup = _first(capture, passes, seed, partial, params)
    if best is None or not descent:
        return best
    # A probe cannot stop while it builds its model: about as long as the passes' set-up
    # took, so the first probe starts only with that much time left.
    return descend(capture, best, deadline, seed, params, anneal, setup)


def _first(
    capture: Capture,
    deadline: Deadline,
    seed: int,
    partial: Partial | None,
    params: ClosestParams,
) -> tuple[Closest | None, float]:
    """The closest of the finished ``partial`` and the greedy passes, by the deadline: a
    pass it reaches is cut (none fitted by then: None); and the seconds the extended
    capture's model took to build."""
    wide = wide_enough(capture)
    if wide is None:
        return None, 0.0
    best: Closest | None = None
    began = time.monotonic()
    model = build_model(wide)  # once for the finished partial and the passes
    setup = time.monotonic() - began
    if partial is not None and (finished := finish(capture, wide, partial, model)) is not None:
        best = _closest(capture, SEARCH_PARTIAL, finished)
    prepared = Prepared.of(wide)
    features = Features.of(model, prepared)
    rng = random.Random(seed)
    # Each constraint-aware order is drawn when its turn comes: on a capture of tens of
    # thousands of requests each takes a tenth of a second to draw.
    strategies = itertools.chain(
        STRATEGIES, (features.strategy(r, rng) for r in range(params.greedy_rounds))
    )

    for strategy in strategies:
        if deadline.passed() or (best is not None and best.overflow == 0):
            break
        attempt = run_strategy(prepared, strategy, deadline.passed)
        if attempt.fits and attempt.placement is not None:
            found = _closest(capture, attempt.strategy.name, attempt.placement)
            if best is None or found.overflow < best.overflow:
                best = found
    return best, setup


def descend(
    capture: Capture,
    best: Closest,
    deadline: Deadline,
    seed: int = 0,
    params: ClosestParams = DEFAULT.closest,
    anneal: AnnealParams = DEFAULT.anneal,
    setup: float = 0.0,
) -> Closest:
    """``best`` lowered by minimising the top: annealing probes in less extra memory.

    Each probe anneals (``tilefit.search.local.anneal``) the capture extended by less
    than ``best``'s overflow, for at most ``params.probe_seconds`` or until it stalls
    (``params.probe_stall``), from the best placement so far: its blocks below the
    probe's top stay where they are, the rest start left out. A probe that places every
    block is the new best and the next asks for a larger cut; one that does not proves
    nothing, and the next asks for half the cut. Probing down from the best (not
    bisecting from no overflow up) keeps each probe near what the last one reached, so
    that the time left is never spent on a probe far out of reach. A probe starts only
    with more time left than a probe's set-up took (``setup`` seconds before the first:
    on a capture of a hundred thousand requests, its model and tables take seconds, and
    nothing stops them at the deadline)."""
    from tilefit.search.local.anneal import Annealer  # compiled: loaded when it runs

    cut = params.first_cut
    for n in itertools.count():
        now = time.monotonic()
        if best.overflow * cut < 1.0 or setup >= deadline.left():  # the cut is not a byte
            break
        extra = int(best.overflow * (1.0 - cut))
        wide = extended(capture, extra)
        model = build_model(wide)
        start = model.bases_of(best.placement.offsets)
        annealer = Annealer(model, start, seed + n, anneal)
        setup = time.monotonic() - now
        if annealer.pairs is None:  # too large for the annealing's tables
            break
        now = time.monotonic()
        probe_ends = deadline.until(now + params.probe_seconds)
        bases = annealer.run(1 << 62, probe_ends, stall=params.probe_stall)
        if bases is None:
            cut /= 2
            continue
        best = _closest(capture, SEARCH_DESCENT, model.placement(wide, bases))
        cut = min(2 * cut, params.first_cut)
    return best


def _closest(capture: Capture, name: str, placement: Placement) -> Closest:
    reach = placement_top(capture, placement.offsets)
    overflow = max(0, reach - capture.memory.size)
    return Closest(overflow, capture.available + overflow, name, placement)
