"""The decision ladder: one function that decides a capture, for every command
(``climb_ladder``; the portfolio's ``decide`` is one of its rungs).

The rungs, cheapest first, each tried only where those below it decided nothing:

1. **production**: the production replay places every unit (``fits``);
2. **bounds**: live storage, a union of allowed sets, alignment padding (``capacity``,
   with the bound that proves it: ``tilefit.bounds.capacity``) or the pieces bound
   (``infeasible``, route ``pieces``);
3. **strategies**: the retry chain's fallbacks, then every other strategy: one greedy
   pass each (``fragmentation``; minimising, a pass at the aligned bound is the least);
4. **search**: the search kernels are compiled if no cache holds them (time given back
   to the limit), then, on a uniform capture, route ``sink`` from a closest placement of
   greedy passes (``_sunk_early``), then the portfolio (``tilefit.search.portfolio``) or,
   with a node limit, the bare exact search; minimising, the least top from its placement;
5. **closest**: nothing decided, the closest placement in more memory and the bracket
   of the least top (it can still place the tile below the top: routes ``descent`` and,
   on a uniform capture, ``sink``).

``diagnose`` climbs from rung 1 (``Entry.REPLAY``), ``solve`` from rung 3
(``Entry.STRATEGIES``, or rung 4 with a node limit: ``Entry.SEARCH``). One
``Deadline`` bounds the whole climb: every greedy pass asks it before each unit, the
search and the closest placement keep it, and a stage it cuts short answers nothing and
is said (``Answer.cut``); the closest placement's reserve is kept from the search's
share. Every placement leaves through one exit, ``_refereed``: a placement the
independent referee rejects is an internal error naming the route or strategy that
made it. The problem (``Problem``) is built once: the search model, the prepared units
and the bounds are shared by every rung.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from tilefit.bounds.capacity import capacity_of
from tilefit.engine import stacking
from tilefit.engine.attempt import Attempt, run_strategy
from tilefit.engine.stacking import NAME as STACKING
from tilefit.engine.strategy import STRATEGIES, Strategy, as_strategies, format_strategy
from tilefit.model.deadline import Deadline
from tilefit.model.placement import Placement, placement_top
from tilefit.search.outcome import Least
from tilefit.search.problem import Problem
from tilefit.search.routes import PIECES, SOLVED
from tilefit.verdicts import reserves
from tilefit.verdicts.answer import Answer
from tilefit.verdicts.check import referee
from tilefit.verdicts.climb import DIAGNOSE, Climb, Entry
from tilefit.verdicts.searching import (
    bare_rung,
    closest_sink_share,
    least_rung,
    search_rung,
    sunk_closest,
)
from tilefit.verdicts.verdict import Verdict
from tilefit.verdicts.watch import QUIET, Watch, compile_stage

if TYPE_CHECKING:
    from tilefit.search.closest import Closest
    from tilefit.search.outcome import Partial
    from tilefit.verdicts.replay import ReplayResult


def climb_ladder(
    problem: Problem,
    deadline: Deadline,
    climb: Climb = DIAGNOSE,
    replayed: ReplayResult | None = None,
    watch: Watch = QUIET,
) -> Answer:
    """The answer for ``problem`` by ``deadline``, climbing from ``climb.entry``
    (``replayed``: the production replay, for ``Entry.REPLAY``). Every placement in it has
    passed the referee."""
    cut: list[str] = []
    climbing = deadline.sooner(reserves.referee_seconds(problem, deadline))
    answer = _climb(problem, climbing, climb, replayed, watch, cut)
    return _refereed(problem, replace(answer, seconds=deadline.spent(), cut=tuple(cut)))


def _climb(
    problem: Problem,
    deadline: Deadline,
    climb: Climb,
    replayed: ReplayResult | None,
    watch: Watch,
    cut: list[str],
) -> Answer:
    """The rungs in turn from ``climb.entry``; each stage the deadline cuts short says so
    in ``cut`` and answers nothing."""
    if climb.entry == Entry.REPLAY:
        if replayed is None:
            raise ValueError("the ladder's first rung needs the production replay")
        if replayed.cut:
            cut.append(f"the production replay ({len(replayed.attempts[-1].placed)} units placed)")
        found = _production(replayed) or _bounds(problem)
        if found is not None:
            return found
    passes = 0.0
    placed: Answer | None = None  # minimising: the best pass, above the bound
    if climb.entry <= Entry.STRATEGIES:
        began = time.monotonic()
        tried = set(problem.capture.production) if climb.entry == Entry.REPLAY else set()
        found = _strategies(problem, climb, tried, deadline, cut, watch)
        passes = time.monotonic() - began
        if found is not None and (found.least is None or found.least.optimal):
            return found
        placed = found
    searched = Answer(verdict=Verdict.UNDETERMINED)
    partial: Partial | None = None
    if climb.search and deadline.passed():
        cut.append("the search (no time left)")
        if placed is not None:
            return placed
    elif (
        climb.search
        and climb.entry != Entry.SEARCH
        and not reserves.loads_in_time(problem, deadline)
    ):
        # Loading the search and building its model would end past the deadline (a large
        # capture on a busy machine): seconds over the limit for a search with no time.
        cut.append("the search (no time left to load it)")
        if placed is not None:
            return placed
    elif climb.search:
        # The closest placement's share is set aside from the time left before the search is
        # loaded: loading it is the search's cost, so where loading takes seconds (a busy
        # machine) the search's share shrinks, not the closest placement's (issue 48).
        left = deadline.left()
        kept = reserves.closest_reserve(left, passes, climb.params.closest, _descends(climb))
        deadline = _compiled(deadline, watch)
        if climb.entry == Entry.SEARCH:
            return bare_rung(problem, deadline, climb, watch)
        if placed is not None:
            return least_rung(problem, deadline, placed, watch, climb.params)
        early = _sunk_early(problem, deadline, climb, watch)
        if early is not None:
            return early
        problem.model  # noqa: B018 (built now: the search needs it, and it times the set-up)
        # The closest placement first builds its extended capture's units and model.
        reserve = min(max(kept, 2 * problem.rebuild_seconds(deadline.stretch())), left / 2)
        if deadline.left() <= reserve:
            cut.append("the search (loading it took its share of the time)")
        else:
            searched, partial = search_rung(problem, deadline, reserve, climb, watch)
            if searched.verdict.decided:
                return searched
    return _closest(problem, deadline, searched, partial, climb, watch, cut)


def _production(replayed: ReplayResult) -> Answer | None:
    """Rung 1: the production replay places every unit."""
    last = replayed.attempts[-1] if replayed.attempts else None
    if last is None or not last.fits:
        return None
    return Answer(verdict=Verdict.FITS, strategy=last.strategy.name, placement=last.placement)


def _bounds(problem: Problem) -> Answer | None:
    """Rung 2: a bound proves that no placement exists."""
    report = problem.bound
    capacity = capacity_of(report)  # live bytes, a union of allowed sets, or with padding
    if capacity is not None:
        return Answer(verdict=Verdict.CAPACITY, capacity=capacity)
    if (short := report.pieces) is not None:
        return Answer(verdict=Verdict.INFEASIBLE, subset=short.requests, route=PIECES)
    return None


def _strategies(
    problem: Problem,
    climb: Climb,
    tried: set[str],
    deadline: Deadline,
    cut: list[str],
    watch: Watch = QUIET,
) -> Answer | None:
    """Rung 3: the fallbacks, then every other strategy, one greedy pass each; the first
    that fits is a placement (``fragmentation``). Minimising, a pass whose top reaches
    the aligned lower bound decides (none can be lower); else the lowest pass is the
    answer so far, the least rung's start, and the passes stop once they have had
    ``LeastParams.passes_share`` of the limit, or, where the search could not be loaded
    in the time left anyway (a million requests), go on to the deadline. A pass the
    deadline reaches is cut, and the passes after it are not run."""
    lower = problem.bound.aligned.top
    chosen = {format_strategy(s): s for s in (*as_strategies(climb.fallbacks), *STRATEGIES)}
    names = [name for name in chosen if name not in tried]
    if climb.minimize and problem.prepared.uniform is not None:
        names.sort(key=lambda name: not _swept(chosen[name]))
    best: Attempt | None = None
    share = climb.params.least.passes_share
    if climb.search and not reserves.loads_in_time(problem, deadline):
        share = 1.0  # no search will load in the time left: the passes may have all of it
    # Until a pass places the capture, the stacking's time is kept: it is the answer then.
    stacked_by = deadline.sooner(stacking.seconds(problem.prepared) * deadline.stretch())
    for done, name in enumerate(names):
        if best is not None and deadline.spent() >= share * deadline.limit:
            break
        until = deadline if best is not None else stacked_by
        watch.stage(f"greedy pass {done + 1} of {len(names)}: {name}", until.at)
        attempt = (
            None if until.passed() else run_strategy(problem.prepared, chosen[name], until.passed)
        )
        if attempt is None or attempt.cut:
            cut.append(f"the strategies' greedy passes ({done} of {len(names)} run)")
            if best is None:  # never nothing: the stacking, where the memory holds it
                return _stacked(problem, climb.minimize, lower)
            break
        tried.add(name)
        if not attempt.fits:
            continue
        if not climb.minimize or attempt.peak_address <= lower:
            least = Least(lower, attempt.peak_address) if climb.minimize else None
            return Answer(
                verdict=Verdict.FRAGMENTATION,
                strategy=name,
                placement=_placed(attempt),
                least=least,
            )
        if best is None or attempt.peak_address < best.peak_address:
            best = attempt
    if best is None:
        return None
    least = Least(lower, best.peak_address)
    return Answer(
        verdict=Verdict.FRAGMENTATION,
        strategy=best.strategy.name,
        placement=_placed(best),
        least=least,
    )


def _swept(strategy: Strategy) -> bool:
    """Whether a large uniform capture's pass is the sweep (``tilefit.engine.sweep_loop``):
    minimising, it goes first, its time growing with the requests, not with how many are
    alive at once (where the other passes' grows with both: a training step's million
    buffers, 200,000 alive at its turn, had none end in two minutes). Not minimising,
    the first pass that fits decides, and the order stays the retry chain's."""
    return strategy.order.by_start


def _stacked(problem: Problem, minimize: bool, lower: int) -> Answer | None:
    """Every unit above the one before it (``tilefit.engine.stacking``): the placement of
    last resort, for a deadline that ends the greedy passes before any places the capture.
    Linear in the units, it runs past the deadline on purpose: an answer a second late
    beats none."""
    placement = stacking.stack(problem.prepared)
    if placement is None:
        return None
    least = Least(lower, placement_top(problem.capture, placement.offsets)) if minimize else None
    return Answer(
        verdict=Verdict.FRAGMENTATION, strategy=STACKING, placement=placement, least=least
    )


def _placed(attempt: Attempt) -> Placement:
    if attempt.placement is None:
        raise ValueError(f"{attempt.strategy.name} fits without a placement")
    return attempt.placement


def engine_ready(problem: Problem, deadline: Deadline, watch: Watch) -> Deadline:
    """The deadline, with the one-time compilation of the engine's loop given back when the
    capture is one it places (large and uniform: ``tilefit.engine.uniform``), before its
    first pass, the production replay's, runs. With the loop cached, nothing: the search's
    modules and kernels are loaded only when a search runs (1.2 s of a 1.7 s answer on
    IREE's MobileBERT trace, which a greedy pass decides)."""
    from tilefit.search.compiling import loop_cached

    if problem.prepared.uniform is None or loop_cached():
        return deadline
    return _compiled(deadline, watch)


def _compiled(deadline: Deadline, watch: Watch) -> Deadline:
    """The deadline, with the one-time compilation of the search kernels given back (and
    only that: importing the search and loading cached kernels are the limit's, so that
    ``--time-limit`` bounds the whole process on a warm install). The search's modules are
    imported here, before the portfolio's share of the limit is worked out."""
    watch.pause()  # a compilation says so itself, on stderr
    import tilefit.search.portfolio  # noqa: F401
    from tilefit.search.compiling import ensure_compiled

    return deadline.give_back(ensure_compiled(during=compile_stage(watch)))


def _descends(climb: Climb) -> bool:
    """Whether the closest placement runs its descent (route ``Descent``, when it is on):
    the descent is annealing, so not without the search, nor with its ``anneal`` route
    off."""
    if not climb.search:
        return False  # and the find member's module is not loaded for nothing
    from tilefit.search.closest import Descent
    from tilefit.search.local.find import Anneal

    routes = climb.params.routes
    return routes.on(Descent) and routes.on(Anneal)


def _closest(
    problem: Problem,
    deadline: Deadline,
    searched: Answer,
    partial: Partial | None,
    climb: Climb,
    watch: Watch,
    cut: list[str],
) -> Answer:
    """Rung 5: the closest placement in more memory, in the time left, and the bracket of
    the least top; unless it fits below the top after all (the descent can end there):
    then it is a placement of the tile, and decides it. Its greedy passes end at its
    deadline, fitted or not: none fitted by then, there is no closest placement."""
    from tilefit.search.bracket import bracket_of
    from tilefit.search.closest import closest

    params, descent = climb.params, _descends(climb)
    left = deadline.left()
    if left <= problem.rebuild_seconds(deadline.stretch()):  # its set-up would run past it
        cut.append("the closest placement (no time left)")
        return searched
    cap = left if descent else params.closest.seconds
    sinking = closest_sink_share(problem, params) if climb.search else 0.0
    watch.stage("the closest placement, in more memory", deadline.at)
    until = Deadline.start(min(cap, left * (1 - sinking)))
    found = closest(
        problem.capture,
        until,
        partial=partial,
        params=params.closest,
        anneal=params.anneal,
        descent=descent,
    )
    if found is None:
        if until.passed():
            cut.append("the closest placement (no pass fitted in time)")
        return searched
    if found.overflow > 0 and sinking > 0 and not deadline.passed():
        found = sunk_closest(problem, found, deadline, watch, params)
    if found.overflow == 0:
        return _fits_after_all(problem, searched, found)
    bracket = bracket_of(problem.capture, problem.model, found.overflow)
    return replace(searched, closest=found, bracket=bracket)


def _sunk_early(problem: Problem, deadline: Deadline, climb: Climb, watch: Watch) -> Answer | None:
    """Before the portfolio, on a uniform capture route ``Sink`` may take (the closest
    rung's rule): a closest placement of greedy passes, its overhang sunk below the top
    (``tilefit.verdicts.searching.sunk_closest``), in ``SinkParams.share`` of the time
    left; a placement of the tile decides it (the portfolio, on thousands of requests,
    rarely does in its limit: pangu_2.6B at its live bound is placed this way in seconds).
    None when it does not fit there."""
    share = closest_sink_share(problem, climb.params)
    if share <= 0:
        return None
    from tilefit.search.closest import closest

    until = deadline.until(time.monotonic() + share * deadline.left())
    watch.stage("the greedy passes in more memory, what lies above the top sunk below it", until.at)
    passes = until.until(time.monotonic() + until.left() / 2)
    found = closest(problem.capture, passes, params=climb.params.closest, descent=False)
    if found is not None and found.overflow > 0 and not until.passed():
        found = sunk_closest(problem, found, until, watch, climb.params)
    if found is None or found.overflow > 0:
        return None
    return _fits_after_all(problem, Answer(verdict=Verdict.UNDETERMINED), found)


def _fits_after_all(problem: Problem, searched: Answer, found: Closest) -> Answer:
    """The closest placement ends within the memory: the tile fragmented, placed by the
    descent (route ``descent``) or by a greedy pass in the extended memory (no route)."""
    least = searched.least
    if least is not None:
        least = Least(least.lower_bound, placement_top(problem.capture, found.placement.offsets))
    return replace(
        searched,
        verdict=Verdict.FRAGMENTATION,
        strategy=found.strategy,
        placement=found.placement,
        route=found.route,
        search_status=SOLVED if found.route else searched.search_status,
        least=least,
    )


def _refereed(problem: Problem, answer: Answer) -> Answer:
    """The ladder's one exit: every placement refereed (a rejected one is tilefit's bug,
    named by the route or strategy that made it), an imported capture's standing, and the
    bound that proves a capacity deficit, if one does."""
    capture = problem.capture
    if answer.placement is not None:
        referee(capture, answer.placement, _maker(answer.route, answer.strategy))
    if answer.closest is not None:
        from tilefit.search.closest import extended

        wide = extended(capture, answer.closest.overflow)
        referee(
            wide, answer.closest.placement, f"the closest placement ({answer.closest.strategy})"
        )
    least = answer.least
    top = None if answer.placement is None else placement_top(capture, answer.placement.offsets)
    best = least.best_top if least is not None else top
    proven = least.optimal if least is not None else False
    report = problem.bound
    heap = None  # a capture not imported stands against no toolchain's heap
    if capture.origin is not None:
        from tilefit.verdicts.heap import heap_standing

        heap = heap_standing(
            capture,
            report.lower_bound,
            best,
            proven,
            report.aligned.top,
            looked=least is not None,
        )
    # A climb that skipped the bounds' rung (solve's) still says what a bound proves.
    return replace(answer, heap=heap, capacity=answer.capacity or capacity_of(report))


def _maker(route: str | None, strategy: str | None) -> str:
    return f"route {route}" if route is not None else f"strategy {strategy}"
