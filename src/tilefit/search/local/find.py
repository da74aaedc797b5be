"""The find member of the portfolio: fast placements where they exist, never a proof.

Each round r tries, with node allowances that double from round to round (the
random choices follow the seed; the time each route gets follows the time the
others took), the routes of the member (each a ``Find`` class, registered) that are
switched on, in rank order:

1. a **greedy pass** in a constraint-aware order (most constrained first,
   ``tilefit.search.local.contention``), the first rounds in fixed orders, later
   ones perturbed at random; a pass that fits is an answer;
2. **completion** of the pass: the blocks the kernel cannot take as free
   (pinned: sequences with per-member lifetimes, conflict sides inside a
   sequence) stay where the pass put them, and the kernel searches every
   other block exactly around them;
3. **repair** of the pass: every block it placed stays, except those alive
   beside the unit it failed on (nearest first in address, a window that
   grows with r); the kernel re-places that window with the units left over.
4. **anneal**: compiled ruin and recreate with simulated annealing
   (``tilefit.search.local.anneal``) with a share of each round's time
   (``FindParams.anneal_shares``), split between one long search from the first pass and
   short searches restarted from fresh passes (``anneal.Restarts``), both
   continued from round to round.

Nothing here proves infeasibility: a round that ends without a placement only
says this route found none.
"""

from __future__ import annotations

import random
import time
from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import ClassVar

from tilefit.engine.attempt import Attempt, Prepared, run_strategy
from tilefit.model.capture import Capture
from tilefit.model.deadline import Deadline
from tilefit.model.placement import Placement
from tilefit.search.blocks import SearchModel
from tilefit.search.exact.solve import Budget, search_free
from tilefit.search.local.anneal import Annealer, Restarts
from tilefit.search.local.contention import Features
from tilefit.search.local.restriction import rigid_restriction
from tilefit.search.outcome import Outcome, Partial, better
from tilefit.search.params import DEFAULT, AnnealParams, SearchParams
from tilefit.search.problem import Problem
from tilefit.search.proof import Search
from tilefit.search.routes import FIND, SOLVED, Member, Route, Routes, of_member


class Find(Route, Search):
    """A route of the find member: given the round's greedy pass, a placement of every
    request or None (``place``); ``needs_time``: skipped once the member's time is up (the
    greedy pass is made whatever the time, since every route starts from it). Run alone
    (``run``), it is the find member with no other route on."""

    member: ClassVar[Member] = FIND
    needs_time: ClassVar[bool] = True

    def run(self, problem: Problem, deadline: Deadline, params: SearchParams) -> Outcome:
        alone = replace(params, routes=Routes.only([self.name]))
        return find_placement(problem, deadline, params=alone)

    @abstractmethod
    def place(self, finder: Finder, this: Round) -> Placement | None:
        """This route's placement from round ``this`` of ``finder``, or None."""


def find_placement(
    problem: Problem,
    deadline: Deadline,
    *,
    seed: int = 0,
    stop: Callable[[], bool] | None = None,
    params: SearchParams = DEFAULT,
) -> Outcome:
    """A placement of every request, found by the routes above by ``deadline`` (those of
    them that ``params.routes`` leaves on, tuned by ``params.find``), or a time-out with
    the annealing's best partial placement: never a proof."""
    started = time.monotonic()
    capture, model = problem.capture, problem.model
    routes = tuple(r() for r in of_member(FIND) if issubclass(r, Find) and params.routes.on(r))
    finder = Finder(capture, model, deadline, random.Random(seed), params, stop)
    rounds = 0
    while routes and not finder.over():
        answer = finder.round(rounds, routes)
        if answer is not None:
            placement, route = answer
            return Outcome(
                status=SOLVED, placement=placement, route=route, seconds=time.monotonic() - started
            )
        rounds += 1
    return Outcome.undecided(time.monotonic() - started, finder.partial())


class Finder:
    """The routes of one ``find_placement`` call, and what they keep from round to round."""

    def __init__(
        self,
        capture: Capture,
        model: SearchModel,
        deadline: Deadline,
        rng: random.Random,
        params: SearchParams,
        stop: Callable[[], bool] | None,
    ) -> None:
        self.capture = capture
        self.deadline = deadline
        self.rng = rng
        self.params = params
        self.stop = stop
        self.model = model
        self.prepared = Prepared.of(capture)
        self.features = Features.of(model, self.prepared)
        self.pinned = model.pinned
        self.annealing: tuple[Restarts, Restarts] | None = None

    def over(self) -> bool:
        return self.deadline.passed() or (self.stop is not None and self.stop())

    def placement(self, bases: dict[int, int] | None) -> Placement | None:
        """The placement of every block at ``bases``, if a route found them."""
        return None if bases is None else self.model.placement(self.capture, bases)

    def partial(self) -> Partial | None:
        """The annealing's best partial placement, if it ran."""
        return None if self.annealing is None else better(*(a.partial() for a in self.annealing))

    def round(self, r: int, routes: tuple[Find, ...]) -> tuple[Placement, str] | None:
        """Round ``r``: one greedy pass, then each of ``routes`` in turn until one places
        every request: the placement and its route."""
        started = time.monotonic()  # the pass is part of the round's time
        attempt = run_strategy(self.prepared, self.features.strategy(r, self.rng), self.over)
        if attempt.cut:  # the deadline came during the pass: no round to make of it
            return None
        this = Round(r, started, self.params.find.first_nodes << min(r, 20), attempt)
        this.at = self.model.bases_of(attempt.offsets)
        for route in routes:
            if route.needs_time and self.over():
                continue
            placed = route.place(self, this)
            if placed is not None:
                return placed, route.name
        return None

    def anneal(self, at: dict[int, int], r: int, spent: float) -> dict[int, int] | None:
        """Two annealing searches share the round's slice: one long search from the first
        pass, continued from round to round (some tiles need one), and short searches
        begun again from fresh passes whenever they stall (others are decided from one
        start in a few hundred iterations and never from another)."""
        model, rng, tuned = self.model, self.rng, self.params.anneal
        prepared, features = self.prepared, self.features
        if self.annealing is None:
            self.annealing = (
                Restarts.one(Annealer(model, at, rng.randrange(1 << 30), tuned)),
                Restarts(
                    lambda k: fresh_annealer(
                        model, prepared, features, k + 1, rng, tuned, self.over
                    ),
                    tuned.stall_unit,
                ),
            )
        shares = self.params.find.anneal_shares
        share = shares[min(r, len(shares) - 1)]
        slice_end = min(self.deadline.at, time.monotonic() + spent * share / (1 - share))
        middle = (time.monotonic() + slice_end) / 2
        for until, annealing in zip((middle, slice_end), self.annealing, strict=True):
            bases = annealing.run(self.deadline.until(until), self.stop)
            if bases is not None:
                return bases
        return None


@dataclass
class Round:
    """What one round's routes share: its number, when it began, the kernel's node
    allowance per call, the greedy pass and the bases it gave the blocks it placed."""

    r: int
    started: float
    nodes: int
    attempt: Attempt
    at: dict[int, int] = field(default_factory=dict)


class Greedy(Find):
    """The round's greedy pass itself, when it placed every request."""

    name = "greedy"
    rank = 10
    proves, places = False, True
    says = "a constraint-aware greedy pass"
    needs_time = False

    def place(self, finder: Finder, this: Round) -> Placement | None:
        return this.attempt.placement if this.attempt.fits else None


class Completion(Find):
    """The pinned blocks where the pass put them, every other block searched exactly."""

    name = "completion"
    rank = 20
    proves, places = False, True
    says = "the exact search around the pass's pinned blocks"

    def place(self, finder: Finder, this: Round) -> Placement | None:
        if not finder.pinned:
            return None
        fixed = {k: this.at[k] for k in finder.pinned if k in this.at}
        bases = _complete(finder.model, fixed, finder.deadline, this.nodes, finder.params)
        return finder.placement(bases)


class Repair(Find):
    """The pass but a window around its failure, re-placed by the kernel."""

    name = "repair"
    rank = 30
    proves, places = False, True
    says = "the exact search re-placing a window of the pass"

    def place(self, finder: Finder, this: Round) -> Placement | None:
        size = finder.params.find.window << min(this.r // 2, 8)
        window = _window(finder.model, this.attempt, this.at, size)
        kept = {k: b for k, b in this.at.items() if k not in window}
        bases = _complete(finder.model, kept, finder.deadline, this.nodes, finder.params)
        return finder.placement(bases)


class Anneal(Find):
    """The two annealing searches, for a share of the round's time so far."""

    name = "anneal"
    rank = 40
    proves, places = False, True
    says = "ruin and recreate with simulated annealing"

    def place(self, finder: Finder, this: Round) -> Placement | None:
        bases = finder.anneal(this.at, this.r, time.monotonic() - this.started)
        return finder.placement(bases)


def fresh_annealer(
    model: SearchModel,
    prepared: Prepared,
    features: Features,
    k: int,
    rng: random.Random,
    params: AnnealParams,
    stop: Callable[[], bool] | None = None,
) -> Annealer:
    """The k-th annealing search: from the pass of constraint-aware order k, a seed drawn
    (a pass ``stop`` cuts short still starts it: the units it did not place start left
    out)."""
    attempt = run_strategy(prepared, features.strategy(k, rng), stop)
    return Annealer(model, model.bases_of(attempt.offsets), rng.randrange(1 << 30), params)


def _complete(
    model: SearchModel, fixed: dict[int, int], deadline: Deadline, nodes: int, params: SearchParams
) -> dict[int, int] | None:
    """Bases for every block, with ``fixed`` kept where they are and the rest searched.

    The blocks searched are made rigid among themselves (``rigid_restriction``
    with the fixed ones exact), which only asks more: every answer is valid.
    """
    free = [k for k in range(len(model.blocks)) if k not in fixed]
    budget = Budget(deadline, nodes, params)
    outcome = search_free(rigid_restriction(model, fixed), free, fixed, budget)
    return outcome.bases if outcome.status == SOLVED else None


def _window(model: SearchModel, attempt: Attempt, at: dict[int, int], size: int) -> set[int]:
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
