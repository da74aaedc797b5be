"""Fast placements where they exist: the layer between the strategies and the exact search.

Each round r (deterministic for a seed) tries, with node allowances that
double from round to round:

1. the **rigid restriction** (``tilefit.search.local.restriction``) with the canonical
   kernel: every answer is a placement of the capture;
2. a **greedy pass** in a constraint-aware order (most constrained first,
   ``tilefit.search.local.contention``), the first rounds in fixed orders, later
   ones perturbed at random; a pass that fits is an answer;
3. **completion** of the pass: the blocks the kernel cannot take as free
   (pinned: sequences with per-member lifetimes, conflict sides inside a
   sequence) stay where the pass put them, and the kernel searches every
   other block exactly around them;
4. **segments**: the same blocks stay, the others are assigned to the
   stretches of memory between reserved gaps and each stretch is searched
   alone (``tilefit.search.local.segments``);
5. **reinsert**: ruin and recreate with the engine, with eviction moves
   (``tilefit.search.local.reinsert``);
6. **repair** of the pass: every block it placed stays, except those alive
   beside the unit it failed on (nearest first in address, a window that
   grows with r); the kernel re-places that window with the units left over.
7. **anneal**: compiled ruin and recreate with simulated annealing
   (``tilefit.search.local.anneal``) with a share of each round's time
   (``ANNEAL_SHARES``), split between one long search from the first pass and
   short searches restarted from fresh passes (``anneal.Restarts``), both
   continued from round to round.

Nothing here proves infeasibility: a round that ends without a placement only
says this route found none.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from tilefit.engine.attempt import Attempt, Prepared, run_strategy
from tilefit.model.capture import Capture
from tilefit.model.placement import Placement
from tilefit.search.blocks import Model, build_model
from tilefit.search.exact.solve import Budget, search, search_free
from tilefit.search.local.anneal import Annealer, Restarts
from tilefit.search.local.contention import Features
from tilefit.search.local.partial import Partial, better
from tilefit.search.local.reinsert import placement_of_units, reinsert
from tilefit.search.local.restriction import rigid_restriction
from tilefit.search.local.segments import Assigner
from tilefit.search.routes import ALL, FIND_ROUTES, SOLVED, Routes

FIRST_NODES = 2_000
"""The kernel's node allowance per call in round 0; it doubles every round."""

ANNEAL_SHARES = (0.5, 0.6, 0.75, 0.85)
"""Of each round's time, what the annealing route gets, by round (the last for every later
one): the cheap routes win most tiles of lower density in their first rounds; past them,
annealing, which needs seconds on the denser ones, wins more."""

REINSERT_SECONDS = 0.3
"""Time for the reinsertion route the first time; every third round it gets more."""

WINDOW = 24
"""Blocks unplaced around the failing unit in round 0; the window grows with the rounds."""


@dataclass(frozen=True)
class Found:
    """What the heuristic layer found, and how."""

    placement: Placement | None
    route: str | None  # the route that found it: see the module text
    rounds: int
    seconds: float
    partial: Partial | None = None  # without a placement: the annealing's best partial one

    def __post_init__(self) -> None:
        assert (self.placement is None) == (self.route is None), self.route
        assert self.route is None or self.route in FIND_ROUTES, self.route


def find_placement(
    capture: Capture,
    time_limit: float,
    *,
    seed: int = 0,
    stop: Callable[[], bool] | None = None,
    routes: Routes = ALL,
) -> Found:
    """A placement of every request, found by the routes above within ``time_limit``
    (those of them that ``routes`` leaves on)."""
    started = time.monotonic()
    deadline = started + time_limit
    model = build_model(capture)
    prepared = Prepared.of(capture)
    features = Features.of(model, prepared)
    pinned = model.pinned
    restriction = rigid_restriction(model) if pinned and routes.on("restriction") else None
    rng = random.Random(seed)
    segments = Assigner.of(model, capture.memory)

    def over() -> bool:
        return time.monotonic() >= deadline or (stop is not None and stop())

    def found(placement: Placement, route: str, rounds: int) -> Found:
        return Found(placement, route, rounds, time.monotonic() - started)

    annealing: tuple[Restarts, Restarts] | None = None
    rounds = 0
    while routes.any_on(FIND_ROUTES) and not over():
        round_started = time.monotonic()
        nodes = FIRST_NODES << min(rounds, 20)
        if restriction is not None:
            outcome = search(restriction, _budget(deadline, nodes))
            if outcome.status == SOLVED and outcome.bases is not None:
                return found(model.placement(capture, outcome.bases), "restriction", rounds)
        attempt = run_strategy(prepared, features.strategy(rounds, rng))
        if attempt.fits and attempt.placement is not None and routes.on("greedy"):
            return found(attempt.placement, "greedy", rounds)
        at = model.bases_of(attempt.offsets)
        fixed = {k: at[k] for k in pinned if k in at}
        if pinned and routes.on("completion") and not over():
            bases = _complete(model, fixed, deadline, nodes)
            if bases is not None:
                return found(model.placement(capture, bases), "completion", rounds)
        if (
            rounds % 3 == 1 and routes.on("segments") and not over()
        ):  # the cheap routes above win most: these less often
            bases = segments.solve(fixed, rng, deadline, nodes)
            if bases is not None:
                return found(model.placement(capture, bases), "segments", rounds)
        if rounds % 3 == 2 and routes.on("reinsert") and not over():
            slice_end = min(deadline, time.monotonic() + REINSERT_SECONDS * (rounds // 3 + 1))
            by_unit = reinsert(prepared, features, attempt, rng, slice_end, stop)
            if by_unit is not None:
                return found(placement_of_units(capture, prepared, by_unit), "reinsert", rounds)
        if routes.on("repair") and not over():
            window = _window(model, attempt, at, WINDOW << min(rounds // 2, 8))
            fixed = {k: b for k, b in at.items() if k not in window}
            bases = _complete(model, fixed, deadline, nodes)
            if bases is not None:
                return found(model.placement(capture, bases), "repair", rounds)
        if routes.on("anneal") and not over():
            # Two annealing routes share the slice: one long search from the first pass,
            # continued from round to round (some tiles need one), and short searches begun
            # again from fresh passes whenever they stall (others are decided from one
            # start in a few hundred iterations and never from another).
            if annealing is None:
                annealing = (
                    Restarts.one(Annealer(model, at, rng.randrange(1 << 30))),
                    Restarts(lambda k: fresh_annealer(model, prepared, features, k + 1, rng)),
                )
            spent = time.monotonic() - round_started
            share = ANNEAL_SHARES[min(rounds, len(ANNEAL_SHARES) - 1)]
            slice_end = min(deadline, time.monotonic() + spent * share / (1 - share))
            middle = (time.monotonic() + slice_end) / 2
            for search_until, route in zip((middle, slice_end), annealing, strict=True):
                bases = route.run(search_until, stop)
                if bases is not None:
                    return found(model.placement(capture, bases), "anneal", rounds)
        rounds += 1
    partial = None if annealing is None else better(*(route.partial() for route in annealing))
    return Found(None, None, rounds, time.monotonic() - started, partial)


def fresh_annealer(
    model: Model, prepared: Prepared, features: Features, k: int, rng: random.Random
) -> Annealer:
    """The k-th annealing search: from the pass of constraint-aware order k, a seed drawn."""
    attempt = run_strategy(prepared, features.strategy(k, rng))
    return Annealer(model, model.bases_of(attempt.offsets), rng.randrange(1 << 30))


def _budget(deadline: float, nodes: int) -> Budget:
    return Budget(max(0.0, deadline - time.monotonic()), nodes)


def _complete(
    model: Model, fixed: dict[int, int], deadline: float, nodes: int
) -> dict[int, int] | None:
    """Bases for every block, with ``fixed`` kept where they are and the rest searched.

    The blocks searched are made rigid among themselves (``rigid_restriction``
    with the fixed ones exact), which only asks more: every answer is valid.
    """
    free = [k for k in range(len(model.blocks)) if k not in fixed]
    outcome = search_free(rigid_restriction(model, fixed), free, fixed, _budget(deadline, nodes))
    return outcome.bases if outcome.status == SOLVED else None


def _window(model: Model, attempt: Attempt, at: dict[int, int], size: int) -> set[int]:
    """The unplaced blocks and those alive beside the failing unit, nearest its hole first."""
    failure = attempt.failure
    if failure is None:
        return set()
    unit = failure.unit
    holes = failure.holes or ((0, model.top),)
    centre = (holes[0][0] + holes[0][1]) // 2  # the largest hole

    def distance(k: int) -> int:
        lo = at[k]
        hi = lo + model.blocks[k].size
        return 0 if lo <= centre < hi else min(abs(lo - centre), abs(hi - centre))

    near = sorted(
        (k for k in at if model.blocks[k].start < unit.end and unit.start < model.blocks[k].end),
        key=lambda k: (distance(k), k),
    )
    unplaced = {k for k in range(len(model.blocks)) if k not in at}
    return unplaced | set(near[:size])
