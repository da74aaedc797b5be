"""The ladder's search rung (``tilefit.verdicts.ladder``): the portfolio or the bare exact
search, and, minimising, the least top from the placement found; each answer made an
``Answer`` (refereed at the ladder's exit, not here)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from tilefit.model.deadline import Deadline
from tilefit.search.outcome import Least, Outcome
from tilefit.search.params import SearchParams
from tilefit.search.problem import Problem
from tilefit.search.routes import INFEASIBLE, SOLVED, strategy_of
from tilefit.verdicts.answer import Answer
from tilefit.verdicts.climb import Climb
from tilefit.verdicts.verdict import Verdict
from tilefit.verdicts.watch import Watch, search_stage

if TYPE_CHECKING:
    from tilefit.model.placement import Placement
    from tilefit.search.closest import Closest
    from tilefit.search.outcome import Partial
    from tilefit.search.proofs.choice import ChoiceWhere


def search_rung(
    problem: Problem, deadline: Deadline, reserve: float, climb: Climb, watch: Watch
) -> tuple[Answer, Partial | None]:
    """Rung 4: the portfolio, in what is left less ``reserve``; minimising, the least top
    from its placement in all that is left (the reserve given back). Undecided, the
    search's best partial placement comes along for the closest placement."""
    from tilefit.search.portfolio import Portfolio

    problem.model  # noqa: B018 (built before the portfolio's share: it is the limit's)
    watch.stage(search_stage(climb.workers), deadline.at - reserve)
    portfolio = Portfolio(workers=climb.workers)
    decision = portfolio.run(problem, deadline.sooner(reserve), climb.params)
    if decision.status == SOLVED and climb.minimize:
        return _least(problem, deadline, decision, watch), None
    found = _decision_answer(problem, decision, climb.params)
    if climb.minimize:  # no placement: the least top is bounded from below only
        found = replace(found, least=_unplaced_least(problem))
    return found, decision.partial


def _decision_answer(problem: Problem, decision: Outcome, params: SearchParams) -> Answer:
    """The portfolio's (or the bare exact search's) decision as an answer."""
    route = decision.route
    if decision.status == SOLVED and decision.placement is not None and route is not None:
        name = strategy_of(route)
        return Answer(
            verdict=Verdict.FRAGMENTATION,
            strategy=name,
            placement=decision.placement,
            route=route,
            search_status=SOLVED,
            nodes=decision.nodes,
        )
    if decision.status == INFEASIBLE:
        return Answer(
            verdict=Verdict.INFEASIBLE,
            search_status=INFEASIBLE,
            subset=decision.subset,
            route=route,
            irreducible=decision.irreducible,
            choice=_where(problem, decision.subset, params) if _by_choice(route) else None,
            nodes=decision.nodes,
        )
    return Answer(verdict=Verdict.UNDETERMINED, search_status=decision.status, nodes=decision.nodes)


def _least(problem: Problem, deadline: Deadline, decision: Outcome, watch: Watch) -> Answer:
    """Minimising from the portfolio's placement: the least top in the time left."""
    from tilefit.search.exact.minimize import minimize

    placement = decision.placement
    route = decision.route
    if placement is None or route is None:
        raise ValueError("the least top needs a placement to start from")
    probing = _bisection(watch, deadline.at)
    lowest = minimize(problem, deadline, first=placement, on_probe=probing, found_by=route)
    return _minimized(lowest, route, decision.nodes)


def least_rung(
    problem: Problem, deadline: Deadline, placed: Answer, watch: Watch, params: SearchParams
) -> Answer:
    """Minimising from the lowest greedy pass (``placed``, above the bound): the least top
    in all the time left, by passes in orders drawn from the live profile (route
    ``reorder``, for a share of it), then the exact search's probes. A placement the
    probes find is the exact search's (route ``exact``); else the lowest pass stays,
    with the bracket narrowed."""
    from tilefit.search.exact.minimize import minimize

    if placed.placement is None or placed.least is None:
        raise ValueError("the least rung needs a placement to start from")
    too_large = problem.section_members > params.exact.members_most  # not in memory
    if deadline.left() <= problem.model_estimate(deadline.stretch()) or too_large:
        placed = _reordered(problem, deadline, placed, watch, params, 1.0 - _sink_share(params))
        return _sunk(problem, deadline, placed, watch, params, 1.0)  # no probes
    from tilefit.search.exact.route import Exact

    probing = _bisection(watch, deadline.at)
    at_bound = minimize(
        problem,
        deadline,
        first=placed.placement,
        on_probe=probing,
        probes=1,
        bound_share=params.least.bound_share,
    )
    bound = _least_of(at_bound)
    if bound.optimal:
        return _minimized(at_bound, Exact.name, 0)
    placed = _windowed(problem, deadline, placed, bound.lower_bound, watch, params)
    placed = _reordered(problem, deadline, placed, watch, params)
    placed = _sunk(problem, deadline, placed, watch, params, _sink_share(params))
    start = placed.placement
    if start is None or placed.least is None or placed.least.optimal:
        return placed
    lowest = minimize(
        problem,
        deadline,
        first=start,
        on_probe=probing,
        bound_first=False,
        lower=placed.least.lower_bound,
    )
    nodes = at_bound.nodes + lowest.nodes
    lowest_least = _least_of(lowest)
    lower = max(bound.lower_bound, lowest_least.lower_bound)  # proven empty below, if it was
    if lowest.placement is None or lowest_least.best_top == placed.least.best_top:
        least = Least(max(lower, placed.least.lower_bound), placed.least.best_top)
        return replace(placed, least=least, nodes=nodes)
    raised = replace(lowest, least=Least(lower, lowest_least.best_top))
    found = _minimized(raised, Exact.name, 0)
    return replace(found, nodes=nodes)


def _windowed(
    problem: Problem,
    deadline: Deadline,
    placed: Answer,
    lower: int,
    watch: Watch,
    params: SearchParams,
) -> Answer:
    """``placed`` with its least top's lower end raised from ``lower`` by windows of steps
    around the busiest ones, each refuted by the exact search on its transients
    (``tilefit.search.proofs.least``), within ``LeastParams.windows_share`` of the time left."""
    from tilefit.search.proofs.least import window_bound

    least = placed.least
    if not params.least.windows or least is None or least.best_top is None:
        return placed
    lower = max(lower, least.lower_bound)
    stop_at = time.monotonic() + params.least.windows_share * deadline.left()
    watch.stage("least top: windows around the busiest steps", stop_at)
    raised = window_bound(problem.capture, lower, least.best_top, stop_at, params=params)
    return replace(placed, least=Least(raised.lower, least.best_top))


def _reordered(
    problem: Problem,
    deadline: Deadline,
    placed: Answer,
    watch: Watch,
    params: SearchParams,
    share: float | None = None,
) -> Answer:
    """``placed``, or a lower pass in an order drawn from the live profile (route
    ``Reorder``, when it is on) within ``share`` of the time left (default
    ``LeastParams.reorder_share``; all of it when no probe follows): on a uniform capture."""
    from tilefit.search.local.reorder import Reorder, reorder

    uniform = problem.prepared.uniform
    least, tuned = placed.least, params.least
    if not params.routes.on(Reorder) or uniform is None or least is None:
        return placed
    share = tuned.reorder_share if share is None else share
    until = deadline.until(time.monotonic() + share * deadline.left())
    watch.stage("least top: greedy passes in other orders", until.at)
    found = reorder(
        problem.capture, uniform, until, least.best_top or 0, least.lower_bound, tuned.seed
    )
    if found is None:
        return placed
    return _lowered(placed, Reorder.name, found.placement, Least(least.lower_bound, found.top))


def _lowered(placed: Answer, route: str, placement: Placement, least: Least) -> Answer:
    """``placed`` with the lower ``placement`` a route of the least rung found."""
    return replace(
        placed,
        strategy=strategy_of(route),
        placement=placement,
        route=route,
        search_status=SOLVED,
        least=least,
    )


def _sink_share(params: SearchParams) -> float:
    from tilefit.search.sat.sink import Sink, SinkParams

    return params.of(SinkParams).share if params.routes.on(Sink) else 0.0


def closest_sink_share(problem: Problem, params: SearchParams) -> float:
    """Of the closest rung's time, what route ``Sink`` takes after the closest placement:
    ``SinkParams.share`` on a uniform capture whose allowed interval reaches the memory's
    top (so that what lies above it lies in the overflow the closest placement may use),
    none of its requests interleaved; else nothing."""
    uniform = problem.prepared.uniform
    capture = problem.capture
    if uniform is None or uniform.high != capture.memory.size:
        return 0.0
    if any(r.interleaved for r in capture.requests):
        return 0.0
    return _sink_share(params)


def sunk_closest(
    problem: Problem, found: Closest, deadline: Deadline, watch: Watch, params: SearchParams
) -> Closest:
    """The closest placement ``found`` (above the memory's top), or a lower one by route
    ``Sink`` by ``deadline``, targets from the top itself up: at the top, a placement of
    the capture (the ladder's closest rung then decides by it)."""
    from tilefit.search.closest import Closest
    from tilefit.search.sat.sink import Sink, SinkParams, lower

    uniform = problem.prepared.uniform
    if uniform is None:
        return found
    watch.stage("the closest placement: what lies above the top sunk below it", deadline.at)
    tuned = params.of(SinkParams)
    sank = lower(problem.capture, uniform, found.placement, uniform.high, deadline, tuned)
    if sank is None or sank.top >= uniform.high + found.overflow:
        return found
    overflow = max(0, sank.top - uniform.high)
    storage = found.storage - found.overflow + overflow
    return Closest(overflow, storage, strategy_of(Sink.name), sank.placement)


def _sunk(
    problem: Problem,
    deadline: Deadline,
    placed: Answer,
    watch: Watch,
    params: SearchParams,
    share: float,
) -> Answer:
    """``placed``, or a lower placement by route ``Sink`` (when it is on) within ``share``
    of the time left: what the pass puts above a target sunk into the holes below it, what
    that displaces placed again by CP-SAT; on a uniform capture above its lower bound."""
    from tilefit.search.sat.sink import Sink, SinkParams, lower

    uniform, least, start = problem.prepared.uniform, placed.least, placed.placement
    if not params.routes.on(Sink) or uniform is None or least is None or start is None:
        return placed
    if least.optimal or least.best_top is None or share <= 0:
        return placed
    until = deadline.until(time.monotonic() + share * deadline.left())
    watch.stage("least top: the overhang sunk below a lower top", until.at)
    found = lower(problem.capture, uniform, start, least.lower_bound, until, params.of(SinkParams))
    if found is None or found.top >= least.best_top:
        return placed
    return _lowered(placed, Sink.name, found.placement, Least(least.lower_bound, found.top))


def _least_of(lowest: Outcome) -> Least:
    """``minimize``'s bounds of the least top (it always gives them)."""
    if lowest.least is None:
        raise ValueError("minimize gave no bounds of the least top")
    return lowest.least


def _minimized(lowest: Outcome, route: str, nodes: int) -> Answer:
    """The least top ``lowest`` found as an answer, a placement's made by ``route``."""
    strategy = strategy_of(route)
    least = _least_of(lowest)
    if lowest.placement is not None:
        verdict = Verdict.FRAGMENTATION
    else:
        verdict = Verdict.INFEASIBLE if lowest.status == INFEASIBLE else Verdict.UNDETERMINED
    return Answer(
        verdict=verdict,
        strategy=strategy if lowest.placement is not None else None,
        placement=lowest.placement,
        route=route if verdict.decided else None,
        search_status=lowest.status,
        least=least,
        nodes=nodes + lowest.nodes,
    )


def _unplaced_least(problem: Problem) -> Least:
    from tilefit.bounds.top import top_lower_bound

    return Least(top_lower_bound(problem.capture, problem.model.lowest_tops()), None)


def _bisection(watch: Watch, deadline: float) -> Callable[[int, int, int], None]:
    """What ``minimize`` calls before each probe: the watch hears the bracket."""

    def probing(lower: int, best: int, top: int) -> None:
        watch.stage("least top", deadline)
        watch.bracket(lower, best, top)

    return probing


def bare_rung(problem: Problem, deadline: Deadline, climb: Climb, watch: Watch) -> Answer:
    """Rung 4 with a node limit: the bare exact kernel alone, whose answer depends on the
    capture alone while the time lasts; proven infeasible, its irreducible subset."""
    from tilefit.search.exact.minimize import minimize
    from tilefit.search.exact.route import Exact, exact_search
    from tilefit.search.exact.subset import irreducible_subset

    limit = climb.node_limit
    watch.stage("search: the exact search alone", deadline.at)
    if climb.minimize:
        probing = _bisection(watch, deadline.at)
        lowest = minimize(problem, deadline, node_limit=limit, on_probe=probing)
        return replace(_minimized(lowest, Exact.name, 0), route=Exact.name)
    decision = exact_search(problem, deadline, limit)
    found = replace(_decision_answer(problem, decision, climb.params), route=Exact.name)
    if decision.status == INFEASIBLE:
        watch.stage("the irreducible subset", deadline.at)
        subset = irreducible_subset(problem, deadline)
        found = replace(found, subset=subset, irreducible=subset is not None)
    return found


def _by_choice(route: str | None) -> bool:
    from tilefit.search.proofs.choice import Choice

    return route == Choice.name


def _where(
    problem: Problem, subset: tuple[str, ...] | None, params: SearchParams
) -> ChoiceWhere | None:
    """The steps and stretches of the core the choice proved, for the reader to check
    (a few 0-1 programs of the core alone, within ``ChoiceParams.where_seconds``)."""
    from tilefit.search.proofs.choice import ChoiceParams, where_choice_fails

    model = problem.model
    named = set(subset or ())
    core = model.restricted(frozenset(k for k, b in enumerate(model.blocks) if b.id in named))
    return where_choice_fails(core, Deadline.start(params.of(ChoiceParams).where_seconds))
