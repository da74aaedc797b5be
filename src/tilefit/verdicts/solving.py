"""The search as a verdict for ``solve``: a placement, a proof with its subset, or a time-out.

``tilefit solve``, the batch's solve mode (``tilefit.batch.work``), the importers'
plans (``tilefit replan``, the ExecuTorch planner) and the library's
``tilefit.solve``, ``tilefit.minimize`` and ``tilefit.irreducible_subset`` ask it.
It climbs the decision ladder (``tilefit.verdicts.ladder``) from the strategies up,
where ``diagnose`` starts from the production replay: one greedy pass per strategy
(a tile a pass decides never waits for the search kernels to compile), then the
portfolio with a share kept for the closest placement and the bracket of the least
top should it time out (``ClosestParams.share``; minimising takes it back).

With a node limit it runs the bare exact kernel instead (``tilefit.search.exact``),
whose answer depends on the capture alone as long as the time limit is not reached
first. ``minimize`` finds the least memory top: a greedy pass that reaches the
aligned lower bound is the least at once; otherwise the portfolio's placement is the
first upper bound of the exact search's bisection.

An infeasible answer comes with an irreducible subset when one was found in
time: units that cannot be placed together, while dropping any one of them
makes the rest placeable.

The search compiles its kernel with numba, so ``tilefit.search`` is imported
only when a search runs: commands that never search never load numba.
"""

from __future__ import annotations

from tilefit.engine.attempt import SEARCHING_FROM, UNIFORM_FROM
from tilefit.model.capture import Capture
from tilefit.model.deadline import Deadline
from tilefit.search.params import DEFAULT, SearchParams
from tilefit.search.problem import Problem
from tilefit.verdicts.answer import Answer
from tilefit.verdicts.climb import Climb, Entry
from tilefit.verdicts.ladder import climb_ladder, engine_ready
from tilefit.verdicts.watch import QUIET, Watch


def solve(
    capture: Capture | Problem,
    time_limit: float = 10.0,
    node_limit: int | None = None,
    *,
    minimize: bool = False,
    workers: int | None = None,
    params: SearchParams = DEFAULT,
    watch: Watch = QUIET,
) -> Answer:
    """``tilefit solve``: a placement (refereed), a proof that none exists, or a time-out
    (``Answer.status``), within ``time_limit`` from the call, the irreducible subset
    included; with ``minimize`` the least memory top (``Answer.least``).

    Without ``node_limit``, the strategies and then the portfolio decide (``workers`` as
    for ``diagnose``); with it, the bare exact kernel, deterministically. The one-time
    compilation of the kernels is not the limit's (``tilefit.search.compiling``).
    ``watch`` hears the stages, their deadlines and the bracket of the least top.
    """
    # Minimising always searches, so numba is loaded anyway: the engine's loop pays sooner.
    # Given a Problem, its bounds serve the caller too (the batch's row).
    problem = (
        capture
        if isinstance(capture, Problem)
        else Problem(capture, SEARCHING_FROM if minimize else UNIFORM_FROM)
    )
    deadline = engine_ready(problem, Deadline.start(time_limit), watch)
    entry = Entry.STRATEGIES if node_limit is None else Entry.SEARCH
    climb = Climb(entry, True, minimize, node_limit, (), workers=workers, params=params)
    return climb_ladder(problem, deadline, climb, None, watch)


def minimize(capture: Capture, time_limit: float = 10.0, node_limit: int | None = None) -> Answer:
    """``tilefit solve --minimize``: the least memory top found (``Answer.least``)."""
    return solve(capture, time_limit, node_limit, minimize=True)


def irreducible_subset(capture: Capture, time_limit: float = 10.0) -> tuple[str, ...] | None:
    """Unit ids that cannot be placed together while dropping any one makes the rest
    placeable (None when not proven infeasible within ``time_limit``); the kernels
    compile before the limit starts."""
    deadline = Deadline.start(time_limit)
    from tilefit.search.compiling import ensure_compiled
    from tilefit.search.exact.subset import irreducible_subset as subset

    return subset(Problem(capture), deadline.give_back(ensure_compiled()))
