"""Diagnose: fits, fragmentation or a capacity deficit, with the evidence.

The order of questions follows the seed investigation: replay production
exactly; if it fails, ask the cheap bounds whether any placement can exist;
if they cannot rule it out, try the other strategies, then the search
portfolio (``tilefit.search.portfolio``: fast placements and proofs racing on
the machine's cores). When nothing decides, the closest placement found
(``tilefit.search.closest``) says how many bytes short the tile is, and the
least memory top is bracketed between a lower bound and its top
(``tilefit.search.bracket``). Every placement reported has passed the
independent checker.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from tilefit.bounds.deficit import BoundReport, Contributor, bound
from tilefit.bounds.pieces import PiecesShort
from tilefit.engine.attempt import Attempt, Prepared, run_strategy
from tilefit.engine.strategy import STRATEGIES, Strategy, as_strategies, format_strategy
from tilefit.model.capture import Capture
from tilefit.model.placement import Placement, placement_top
from tilefit.search.bracket import Bracket
from tilefit.search.params import DEFAULT, ClosestParams, SearchParams
from tilefit.search.routes import (
    CHOICE,
    DECIDING_ROUTES,
    INFEASIBLE,
    PIECES,
    SOLVED,
    strategy_of,
)
from tilefit.verdicts.check import referee
from tilefit.verdicts.heap import HeapStanding, heap_standing
from tilefit.verdicts.replay import replay
from tilefit.verdicts.retry import DEFAULT_FALLBACKS
from tilefit.verdicts.watch import QUIET, Watch, search_stage

if TYPE_CHECKING:
    from tilefit.search.closest import Closest
    from tilefit.search.decision import Partial
    from tilefit.search.proofs.choice import ChoiceWhere

VERDICTS = ("fits", "fragmentation", "capacity", "infeasible", "undetermined")


@dataclass(frozen=True, slots=True)
class Diagnosis:
    capture: str
    tile: int | None
    verdict: str  # one of VERDICTS
    strategy: str | None  # what fits: a strategy name, "exact-search", or None
    bound: BoundReport
    must_leave: int  # bytes that must leave the worst overloaded window (0: none)
    production: tuple[Attempt, ...]  # the production attempts, in order
    reproduced: bool | None  # against capture.observed_failed; None when not observed
    placement: Placement | None  # checked valid by the referee, when one was found
    search_status: str | None  # the search's answer, when it ran
    irreducible_subset: tuple[str, ...] | None  # for "infeasible": ids that cannot fit together
    seconds: float
    search_route: str | None = None  # the search route that decided (see SEARCH_ROUTES)
    subset_irreducible: bool = False  # dropping any one id of the subset makes it placeable
    closest: Closest | None = None  # for "undetermined": the best placement in more memory
    heap: HeapStanding | None = None  # for an imported capture: where its compiler's heap stands
    bracket: Bracket | None = None  # for "undetermined": where the least top lies
    choice: ChoiceWhere | None = None  # for "infeasible" by the choice: its steps and stretches

    @property
    def pieces(self) -> PiecesShort | None:
        """For "infeasible" by the pieces bound: where and by how much it is short."""
        return self.bound.pieces if self.search_route == PIECES else None

    @property
    def lower_bound(self) -> int:
        return self.bound.lower_bound

    @property
    def available(self) -> int:
        return self.bound.available

    @property
    def deficit(self) -> int:
        return self.bound.deficit

    @property
    def support_deficit(self) -> int:
        return self.bound.support_deficit

    @property
    def aligned_lower_bound(self) -> int:
        return self.bound.aligned_lower_bound

    @property
    def aligned_deficit(self) -> int:
        return self.bound.aligned_deficit

    @property
    def peak_step(self) -> int:
        return self.bound.peak_step

    @property
    def contributors(self) -> tuple[Contributor, ...]:
        return self.bound.contributors

    @property
    def production_failed_id(self) -> str | None:
        """The unit named by the last production attempt's failure (the error users see)."""
        last = self.production[-1] if self.production else None
        return last.failure.unit.id if last is not None and last.failure else None

    @property
    def production_failed_members(self) -> tuple[str, ...]:
        last = self.production[-1] if self.production else None
        if last is None or last.failure is None:
            return ()
        return tuple(m.id for m in last.failure.unit.members)

    @property
    def production_failed_at_peak(self) -> bool:
        """Is the request named in the production error among those live at the peak?"""
        at_peak = {c.id for c in self.contributors}
        return any(m in at_peak for m in self.production_failed_members)


def diagnose(
    capture: Capture,
    *,
    time_limit: float = 10.0,
    search: bool = True,
    fallbacks: Sequence[Strategy | str] = DEFAULT_FALLBACKS,
    workers: int | None = None,
    params: SearchParams = DEFAULT,
    watch: Watch = QUIET,
) -> Diagnosis:
    """One verdict for a capture, with its evidence.

    ``time_limit`` bounds the whole (the bounds and the strategies are cheap; the search
    leaves time for the closest placement when it ends undecided), except the one-time
    compilation of the search kernels when no cache holds them (``tilefit.search.compiling``:
    it happens before the search starts, with a line on stderr);
    ``search=False`` stops after the strategies (verdict ``undetermined`` when
    they all fail and no bound proves a deficit). ``fallbacks`` are tried first
    among the strategies, so the retry chain's choice is the one reported.
    ``workers`` caps the processes the search races on (default: up to 2 of
    the machine's cores; 1 runs its members in turn, in this process). ``params``
    switches search routes and prunings off, for an ablation, and tunes the search
    (``tilefit.search.params.SearchParams``).
    ``watch`` hears the search's stages and their deadlines (``tilefit.verdicts.watch``).
    """
    started = time.monotonic()
    report = bound(capture)
    prepared = Prepared.of(capture)
    replayed = replay(prepared)  # the production attempts, as production runs them
    production = replayed.attempts
    outcome = _Outcome()
    fitting = production[-1] if production[-1].fits else None
    if fitting is not None:
        outcome = _Outcome("fits", fitting.strategy.name, _checked(capture, fitting))
    elif report.proves_deficit:  # live bytes, a union of allowed sets, or with padding
        outcome = _Outcome("capacity")
    elif (short := report.pieces) is not None:
        outcome = _Outcome("infeasible", subset=short.requests, route=PIECES)
    else:
        outcome = _beyond_the_bounds(
            capture, prepared, fallbacks, started, time_limit, search, workers, params, watch
        )
    return Diagnosis(
        capture=capture.name,
        tile=capture.tile,
        verdict=outcome.verdict or "undetermined",
        strategy=outcome.strategy,
        bound=report,
        must_leave=report.must_leave,
        production=production,
        reproduced=replayed.reproduced,
        placement=outcome.placement,
        search_status=outcome.search_status,
        irreducible_subset=outcome.subset,
        seconds=time.monotonic() - started,
        search_route=outcome.route,
        subset_irreducible=outcome.irreducible,
        closest=outcome.closest,
        bracket=outcome.bracket,
        choice=outcome.choice,
        heap=heap_standing(
            capture,
            report.lower_bound,
            _top(capture, outcome.placement),
            aligned=report.aligned.top,
        ),
    )


def _beyond_the_bounds(
    capture: Capture,
    prepared: Prepared,
    fallbacks: Sequence[Strategy | str],
    started: float,
    time_limit: float,
    search: bool,
    workers: int | None,
    params: SearchParams,
    watch: Watch,
) -> _Outcome:
    """Where replay and the bounds decide nothing: the other strategies, the search (unless
    ``search`` is off) and, undecided, the closest placement, all by ``started +
    time_limit`` (a one-time compilation given back)."""
    # The descent is annealing: not without the search, nor with its route off.
    descent = params.closest.descent and search and params.routes.on("anneal")
    nearest = replace(params, closest=replace(params.closest, descent=descent))
    passes_started = time.monotonic()
    outcome = _other_strategies(capture, prepared, fallbacks)
    passes = time.monotonic() - passes_started
    if outcome.verdict is None and search:
        watch.pause()  # a compilation says so itself, on stderr
        started += _compile()  # the one-time compilation is not the limit's
        remaining = max(0.0, time_limit - (time.monotonic() - started))
        reserve = closest_reserve(remaining, passes, nearest.closest)
        watch.stage(search_stage(workers), time.monotonic() + remaining - reserve)
        outcome = _search(capture, remaining - reserve, workers, params)
    if outcome.verdict is not None:
        return outcome
    left = time_limit - (time.monotonic() - started)
    watch.stage("the closest placement, in more memory", started + time_limit)
    return _undetermined(capture, outcome, _closest(capture, left, outcome.partial, nearest))


def _top(capture: Capture, placement: Placement | None) -> int | None:
    return None if placement is None else placement_top(capture, placement.offsets)


@dataclass(frozen=True, slots=True)
class _Outcome:
    verdict: str | None = None
    strategy: str | None = None
    placement: Placement | None = None
    search_status: str | None = None
    subset: tuple[str, ...] | None = None
    route: str | None = None
    irreducible: bool = False
    closest: Closest | None = None
    bracket: Bracket | None = None
    partial: Partial | None = None  # the search's best partial placement, when it timed out
    choice: ChoiceWhere | None = None


def _other_strategies(
    capture: Capture, prepared: Prepared, fallbacks: Sequence[Strategy | str]
) -> _Outcome:
    tried = set(capture.production)
    for strategy in (*as_strategies(fallbacks), *STRATEGIES):
        name = format_strategy(strategy)
        if name in tried:
            continue
        tried.add(name)
        attempt = run_strategy(prepared, strategy)
        if attempt.fits:
            return _Outcome("fragmentation", name, _checked(capture, attempt))
    return _Outcome()


def _compile() -> float:
    """Compile the search kernels if no cache holds them: the seconds it took (see
    ``tilefit.search.compiling``). The search's modules are imported here too, so that the
    time they take is counted before the search's share of the limit is."""
    import tilefit.search.portfolio  # noqa: F401
    from tilefit.search.compiling import ensure_compiled

    return ensure_compiled()


def _search(
    capture: Capture, time_limit: float, workers: int | None, params: SearchParams
) -> _Outcome:
    from tilefit.search.portfolio import decide  # compiles the search kernel on first use

    decision = decide(capture, time_limit, workers=workers, params=params)
    route = decision.route
    if decision.status == SOLVED and decision.placement is not None and route is not None:
        name = strategy_of(route)
        return _Outcome(
            "fragmentation",
            name,
            referee(capture, decision.placement, name),
            search_status=SOLVED,
            route=route,
        )
    if decision.status == INFEASIBLE:
        return _Outcome(
            "infeasible",
            search_status="infeasible",
            subset=decision.subset,
            route=route,
            irreducible=decision.irreducible,
            choice=_where(capture, decision.subset) if route == CHOICE else None,
        )
    return _Outcome(search_status=decision.status, partial=decision.partial)


CHOICE_SECONDS = 1.0
"""At most this long to find the steps of a core the choice proved (a few 0-1 programs of
the core alone: milliseconds for tile 847's)."""


def _where(capture: Capture, subset: tuple[str, ...] | None) -> ChoiceWhere | None:
    """The steps and stretches of the core the choice proved, for the reader to check."""
    from tilefit.search.blocks import build_model
    from tilefit.search.proofs.choice import where_choice_fails

    model = build_model(capture)
    named = set(subset or ())
    core = model.restricted(frozenset(k for k, b in enumerate(model.blocks) if b.id in named))
    return where_choice_fails(core, time.monotonic() + CHOICE_SECONDS)


SEARCH_ROUTES = DECIDING_ROUTES
"""Routes that decide (``tilefit.search.routes.REGISTRY``): ``pieces`` (the pieces bound,
``tilefit.bounds.pieces``) and those of the search portfolio."""

CLOSEST_SECONDS = 2.0
"""At most this long, or the time left if shorter, for the closest placement (it stops at
its deadline once one greedy pass has fitted, so one pass may run past it)."""


def closest_reserve(remaining: float, passes: float, params: ClosestParams) -> float:
    """Seconds of ``remaining`` kept from the search for the closest placement, should it
    end undecided: with the descent, ``params.share`` of it; without, about twice the
    greedy passes just run (``passes`` seconds: the closest runs 24 of them on a larger
    capture), at most ``CLOSEST_SECONDS`` and a fifth of it."""
    if params.descent:
        return remaining * params.share
    return min(CLOSEST_SECONDS, 2 * passes, remaining / 5)


def _closest(
    capture: Capture, time_limit: float, partial: Partial | None, params: SearchParams
) -> Closest | None:
    from tilefit.search.closest import closest, extended

    cap = time_limit if params.closest.descent else CLOSEST_SECONDS
    limit = min(cap, max(time_limit, 0.1))
    found = closest(capture, limit, partial=partial, params=params.closest, anneal=params.anneal)
    if found is not None:
        referee(extended(capture, found.overflow), found.placement, "the closest placement")
    return found


def _undetermined(capture: Capture, outcome: _Outcome, found: Closest | None) -> _Outcome:
    """Nothing decided: the closest placement and the bracket of the least top, unless the
    closest fits in the memory after all (its descent can end there): then it is a
    placement, refereed, and the tile fragmented."""
    from tilefit.search.blocks import build_model
    from tilefit.search.bracket import bracket_of

    if found is not None and found.overflow == 0:
        placement = referee(capture, found.placement, found.strategy)
        return replace(
            outcome,
            verdict="fragmentation",
            strategy=found.strategy,
            placement=placement,
            route=found.route,
            search_status=SOLVED if found.route else outcome.search_status,
        )
    if found is None:
        return replace(outcome, verdict="undetermined")
    return replace(
        outcome,
        verdict="undetermined",
        closest=found,
        bracket=bracket_of(capture, build_model(capture), found.overflow),
    )


def _checked(capture: Capture, attempt: Attempt) -> Placement:
    placement = attempt.placement
    assert placement is not None
    return referee(capture, placement, attempt.strategy.name)
