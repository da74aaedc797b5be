"""The search as a verdict for ``solve``: a placement, a proof with its subset, or a time-out.

``tilefit solve``, the batch's solve mode (``tilefit.batch.work``) and the library's
``tilefit.solve``, ``tilefit.minimize`` and ``tilefit.irreducible_subset`` ask it;
``diagnose`` calls the same portfolio through its own ``_search``, only when replay,
the bounds and the strategies have not decided, and with what is left of its limit
less a reserve for the closest placement. ``search_exact`` gives the portfolio the
limit less the time importing the search takes (the one-time compilation is not the
limit's) and less the same share kept for the closest placement and the bracket of
the least top when it times out (``ClosestParams.share``; minimising takes it back).

Without a node limit it decides with the portfolio (``tilefit.search.portfolio``).
With one it runs the bare exact kernel instead (``tilefit.search.exact.solve``),
whose answer depends on the capture alone as long as the time limit is not
reached first. ``--minimize`` without a node limit starts from the placement
the portfolio found, as its first upper bound; with one, the exact search finds
its own first placement at the full top (``tilefit.search.exact.minimize``).

An infeasible answer comes with an irreducible subset when one was found in
time: units that cannot be placed together, while dropping any one of them
makes the rest placeable.

The search compiles its kernel with numba, so ``tilefit.search`` is imported
only when a search runs: commands that never search never load numba.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from tilefit.model.capture import Capture
from tilefit.model.placement import Placement
from tilefit.search.params import DEFAULT
from tilefit.verdicts.check import referee
from tilefit.verdicts.heap import HeapStanding, heap_standing
from tilefit.verdicts.watch import QUIET, Watch, search_stage

if TYPE_CHECKING:
    from tilefit.search import Decision, MinimizeResult
    from tilefit.search.bracket import Bracket
    from tilefit.search.closest import Closest
    from tilefit.search.decision import Partial


@dataclass(frozen=True, slots=True)
class ExactResult:
    """The search's answer and, for an infeasible capture, its explanation."""

    result: Decision | MinimizeResult
    irreducible_subset: tuple[str, ...] | None  # when infeasible and found within the time
    route: str | None = None  # the portfolio's route that decided (see diagnose.SEARCH_ROUTES)
    heap: HeapStanding | None = None  # an imported capture's own heap beside the lowest top
    closest: Closest | None = None  # timed out: the closest placement, in more memory
    bracket: Bracket | None = None  # timed out: where the least memory top lies

    @property
    def status(self) -> str:
        """``solved``, ``infeasible`` or ``timeout``."""
        return self.result.status

    @property
    def placement(self) -> Placement | None:
        return self.result.placement

    @property
    def seconds(self) -> float:
        return self.result.seconds

    @property
    def nodes(self) -> int:
        return self.result.nodes


def search_exact(
    capture: Capture,
    time_limit: float,
    *,
    minimize: bool = False,
    node_limit: int | None = None,
    workers: int | None = None,
    watch: Watch = QUIET,
) -> ExactResult:
    """Solve ``capture`` (or, with ``minimize``, find its lowest memory top) within
    ``time_limit``, subset included; when it is infeasible, the subset that explains it.

    Without ``node_limit``, the portfolio decides (``workers`` as for ``diagnose``);
    with it, the bare exact kernel, deterministically. The one-time compilation of
    the kernels happens before the limit starts (``tilefit.search.compiling``). ``watch``
    hears the stages, their deadlines and the bracket of the lowest top
    (``tilefit.verdicts.watch``).
    """
    began = time.monotonic()  # importing the search (numba) is the limit's too
    if minimize and node_limit is None:
        quick = _greedy_at_bound(capture, began)
        if quick is not None:  # proven least without the kernels: nothing to compile
            return replace(quick, heap=_standing(capture, quick.result))
    from tilefit.search.compiling import ensure_compiled  # compiles the kernels on first use

    watch.pause()  # a compilation says so itself, on stderr
    deadline = began + ensure_compiled() + time_limit

    def left() -> float:
        return max(0.0, deadline - time.monotonic())

    if node_limit is not None:  # the bare kernel's placements are "exact" too
        watch.stage("search: the exact search alone", deadline)
        found = _bare(capture, left(), minimize, node_limit, deadline, watch)
    else:
        # Kept for the closest placement should nothing be placed; minimising gets it back.
        reserve = left() * DEFAULT.closest.share
        watch.stage(search_stage(workers), deadline - reserve)
        found = _portfolio(capture, left(), reserve, minimize, workers, watch)
    if found.result.placement is not None:
        referee(capture, found.result.placement, "the search")
    result = replace(found.result, seconds=time.monotonic() - began)
    return replace(found, result=result, heap=_standing(capture, result))


def _greedy_at_bound(capture: Capture, began: float) -> ExactResult | None:
    """The least top, when one greedy pass already reaches the aligned lower bound.

    A strategy takes milliseconds (about 60 ms on a 4,662-request tile); the first
    whose placement's top equals a bound no placement can beat is proven least, and
    the search (and compiling its kernels, a minute on first use) is not needed.
    """
    from tilefit.bounds.aligned import aligned_bound
    from tilefit.engine.attempt import Prepared, run_strategy
    from tilefit.engine.strategy import STRATEGIES

    lower = aligned_bound(capture).top
    prepared = Prepared.of(capture)
    attempts = (run_strategy(prepared, s) for s in STRATEGIES)
    best = next((a for a in attempts if a.fits and a.peak_address <= lower), None)
    placement = None if best is None else best.placement
    if best is None or placement is None:
        return None
    referee(capture, placement, f"greedy {best.strategy.name}")
    from tilefit.search import SOLVED, MinimizeResult

    found = MinimizeResult(SOLVED, time.monotonic() - began, 0, lower, best.peak_address, placement)
    return ExactResult(found, None, "greedy")


def _standing(capture: Capture, result: Decision | MinimizeResult) -> HeapStanding | None:
    """For an imported capture: its toolchain's heap beside the lowest top found."""
    if capture.origin is None:
        return None
    from tilefit.bounds.deficit import bound
    from tilefit.model.placement import placement_top

    best = getattr(result, "best_top", None)
    if best is None and result.placement is not None:
        best = placement_top(capture, result.placement.offsets)
    proven = bool(getattr(result, "optimal", False))
    return heap_standing(capture, bound(capture).lower_bound, best, proven)


def _bare(
    capture: Capture,
    time_limit: float,
    minimize: bool,
    node_limit: int,
    deadline: float,
    watch: Watch,
) -> ExactResult:
    from tilefit import search

    if minimize:
        result: Decision | MinimizeResult = search.minimize(
            capture, time_limit, node_limit=node_limit, on_probe=_bisection(watch, deadline)
        )
    else:
        result = search.solve(capture, time_limit, node_limit)
    subset = None
    if result.status == search.INFEASIBLE:
        watch.stage("the irreducible subset", deadline)
        subset = search.irreducible_subset(capture, max(0.0, deadline - time.monotonic()))
    return ExactResult(result, subset, "exact")


def _bisection(watch: Watch, deadline: float) -> Callable[[int, int, int], None]:
    """What ``minimize`` calls before each probe: the watch hears the bracket."""

    def probing(lower: int, best: int, top: int) -> None:
        watch.stage("least top", deadline)
        watch.bracket(lower, best, top)

    return probing


def _portfolio(
    capture: Capture,
    time_limit: float,
    reserve: float,
    minimize: bool,
    workers: int | None,
    watch: Watch,
) -> ExactResult:
    """The portfolio's answer in ``time_limit`` less ``reserve``; then, timed out, the
    closest placement in what is left, or, minimising, the least top."""
    from tilefit import search
    from tilefit.search.exact.minimize import undecided
    from tilefit.search.portfolio import decide

    started = time.monotonic()
    deadline = started + time_limit
    decision = decide(capture, time_limit - reserve, workers=workers)
    subset = decision.subset if decision.irreducible else None
    if not minimize or decision.placement is None:
        answer: Decision | MinimizeResult = decision
        if minimize:
            answer = undecided(capture, decision.status, decision.seconds, decision.nodes)
        found = ExactResult(answer, subset, decision.route)
        return _bracketed(capture, found, decision.partial, deadline, watch)
    referee(capture, decision.placement, "the search")  # before it bounds anything
    left = max(0.0, time_limit - (time.monotonic() - started))
    probing = _bisection(watch, started + time_limit)
    lowest = search.minimize(capture, left, first=decision.placement, on_probe=probing)
    return ExactResult(replace(lowest, nodes=lowest.nodes + decision.nodes), None, decision.route)


def _bracketed(
    capture: Capture, found: ExactResult, partial: Partial | None, deadline: float, watch: Watch
) -> ExactResult:
    """``found``, and when the search timed out, the closest placement made in the time
    left (refereed in its extended memory) and the bracket of the least top; or, when
    that placement fits below the top after all (the descent can end there), ``found``
    solved by it (route ``descent``, or the greedy pass that made it)."""
    from tilefit.search import TIMEOUT
    from tilefit.search.blocks import build_model
    from tilefit.search.bracket import bracket_of
    from tilefit.search.closest import closest, extended

    if found.status != TIMEOUT:
        return found
    watch.stage("the closest placement, in more memory", deadline)
    near = closest(capture, max(0.1, deadline - time.monotonic()), partial=partial)
    if near is None:
        return found
    if near.overflow == 0:
        return _solved_by(capture, found, near)
    referee(extended(capture, near.overflow), near.placement, "the closest placement")
    return replace(
        found, closest=near, bracket=bracket_of(capture, build_model(capture), near.overflow)
    )


def _solved_by(capture: Capture, found: ExactResult, near: Closest) -> ExactResult:
    """``found`` (timed out) solved by a closest placement that fits below the top (a
    greedy pass's is the ``greedy`` route's: a solved ``Decision`` names its route)."""
    from tilefit.model.placement import placement_top
    from tilefit.search import SOLVED, MinimizeResult
    from tilefit.search.decision import Decision

    placement = referee(capture, near.placement, near.strategy)
    route = near.route or "greedy"
    was = found.result
    if isinstance(was, MinimizeResult):  # the least top is still bracketed, now by it
        top = placement_top(capture, placement.offsets)
        result: Decision | MinimizeResult = replace(
            was, status=SOLVED, best_top=top, placement=placement
        )
    else:
        result = Decision(SOLVED, placement, route, seconds=was.seconds, nodes=was.nodes)
    return replace(found, result=result, route=route)


def solve(capture: Capture, time_limit: float = 10.0, node_limit: int | None = None) -> Decision:
    """``tilefit solve``: a placement (refereed), a proof that none exists, or a time-out,
    decided by the portfolio; with ``node_limit``, by the bare exact kernel alone."""
    from tilefit.search.decision import Decision

    result = search_exact(capture, time_limit, node_limit=node_limit).result
    assert isinstance(result, Decision)
    return result


def minimize(
    capture: Capture, time_limit: float = 10.0, node_limit: int | None = None
) -> MinimizeResult:
    """``tilefit solve --minimize``: the lowest memory top found, from the portfolio's
    placement (or the bare kernel's with ``node_limit``)."""
    from tilefit.search.exact.minimize import MinimizeResult

    result = search_exact(capture, time_limit, minimize=True, node_limit=node_limit).result
    assert isinstance(result, MinimizeResult)
    return result


def irreducible_subset(capture: Capture, time_limit: float = 10.0) -> tuple[str, ...] | None:
    """Unit ids that cannot be placed together while dropping any one makes the rest
    placeable (None when not proven infeasible within ``time_limit``); the kernels
    compile before the limit starts."""
    began = time.monotonic()
    from tilefit.search.compiling import ensure_compiled
    from tilefit.search.exact.subset import irreducible_subset as subset

    left = max(0.0, began + ensure_compiled() + time_limit - time.monotonic())
    return subset(capture, left)
