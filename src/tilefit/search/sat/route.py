"""Route ``cpsat``: OR-Tools CP-SAT on the tile, from the closest placement, for its share.

The prove member runs it after the cheap proofs, by its rank (``tilefit.search.portfolio.proofs``).
It takes ``CpsatParams.share`` of the member's time:

1. the hint: the closest placement of greedy passes in the capture extended above its
   top (``tilefit.search.closest.closest`` without the descent), within ``hint_share``
   of the route's time (a pass that fits below the top is a hint CP-SAT accepts at once);
2. the model (``tilefit.search.sat.model``) of the extended capture, every block hinted,
   the top minimised from the hint's: CP-SAT's large neighbourhood searches improve a
   full solution, where a plain feasibility question starts from nothing;
3. the solve, with ``no_overlap_2d``'s timetabling and energetic reasoning switched on
   (not the area-energetic one, which gave wrong answers in OR-Tools 9.12), ended as
   soon as a solution reaches the capacity (the top's least value: an optimum).

A solution at the capacity is a placement (refereed at the ladder's exit, as every
placement); a lower bound on the top above the capacity is a proof, the model being
exact there (its module text says why), with the exact search's deletion filter
shrinking the subset in the time left. Without OR-Tools installed the route is skipped.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from tilefit.model.capture import Capture
from tilefit.model.deadline import Deadline
from tilefit.search.blocks import SearchModel, build_model
from tilefit.search.closest import closest, extended
from tilefit.search.exact.route import proven
from tilefit.search.outcome import Outcome, Partial
from tilefit.search.params import SearchParams, Tuned, ruled
from tilefit.search.problem import Problem
from tilefit.search.proof import Proof
from tilefit.search.routes import INFEASIBLE, SOLVED, TIMEOUT, Status
from tilefit.search.sat.model import build


def _cp_model() -> Any:
    """OR-Tools' CP-SAT module, imported where the route first runs (0.6 s with the pandas it
    loads: in the member that proves, not in the process that loads the portfolio, issue
    48), or None without OR-Tools."""
    try:
        from ortools.sat.python import cp_model
    except ImportError:  # pragma: no cover - depends on the environment
        return None
    return cp_model


@dataclass(frozen=True)
class CpsatParams(Tuned):
    """Route ``cpsat``: OR-Tools CP-SAT from the closest placement
    (``tilefit.search.sat.route``; switched off as a route, ``Routes``)."""

    share: float = ruled(0.5, "share")
    """Of the prove member's time, what the route may take (hint, model and solve)."""
    workers: int = ruled(2, "whole")
    """CP-SAT's threads. With one there is no large neighbourhood search, which is what
    improves the hint: tile 503 of synth seed 2 took 19-23 s with one, 2.5-17 s with two."""
    hint: bool = ruled(True, "switch")
    """Start from the closest placement of greedy passes in the capture extended above its
    top, the top minimised (off: a plain feasibility question within the capacity)."""
    hint_share: float = ruled(0.1, "share")
    """Of the route's time, what the hint's greedy passes may take."""
    area: bool = ruled(False, "switch")
    """Minimise the bytes x steps above the top instead of the top itself."""
    timetabling: bool = ruled(True, "switch")
    """``no_overlap_2d``'s timetabling (CP-SAT's ``use_timetabling_in_no_overlap_2d``)."""
    energetic: bool = ruled(True, "switch")
    """``no_overlap_2d``'s energetic reasoning (``use_energetic_reasoning_in_no_overlap_2d``)."""
    probing: int = ruled(0, "count")
    """CP-SAT's ``cp_model_probing_level``: its presolve probing took 12 s of tile 503's
    first 13 with the default (2), before any search."""
    proves: bool = ruled(False, "switch")
    """Take CP-SAT's proof of infeasibility (its model is exact within the capacity:
    ``tilefit.search.sat.model``). Off by default: CP-SAT has answered INFEASIBLE for
    feasible models in several releases (OR-Tools issues 4546 in 9.12, 5003 in 9.15, the
    one installed here), and a verdict must never be wrong; its placements count either
    way, refereed."""
    seed: int = ruled(0, "count")
    """CP-SAT's ``random_seed``."""
    block_limit: int = ruled(5_000, "whole")
    """Blocks beyond which the route stands aside: its model is built in Python, which
    no deadline interrupts (about 0.2 s per 1,000 blocks), and CP-SAT's presolve on tens of
    thousands of rectangles would take the route's share before any search."""


class Cpsat(Proof):
    """OR-Tools CP-SAT from the closest placement, in the prove member: a placement, a
    proof, or, in its share of the time, its best solution above the top as a partial
    placement the member keeps."""

    name = "cpsat"
    rank = 50
    tuning = CpsatParams
    proves, places = True, True
    says = (
        "OR-Tools CP-SAT's search, started from the closest placement, was exhausted "
        "within the memory"
    )

    def run(self, problem: Problem, deadline: Deadline, params: SearchParams) -> Outcome | None:
        capture, model = problem.capture, problem.model
        tuned = params.of(CpsatParams)
        share = deadline.share(tuned.share)  # the member's deadline at the latest
        status, bases, search = sat_search(capture, model, share, tuned)
        if status == SOLVED and bases is not None:
            placed = search.placement(capture, bases)
            return Outcome(
                status=SOLVED, placement=placed, route=self.name, seconds=deadline.spent()
            )
        if status == INFEASIBLE:
            return proven(problem, model, Cpsat, deadline, params)
        if bases is not None:
            partial = below(search, bases, capture.memory.size)
            return Outcome.undecided(deadline.spent(), partial)
        return None


def below(search: SearchModel, bases: dict[int, int], capacity: int) -> Partial:
    """The blocks of a solution that lie below the capacity, as a partial placement: valid
    for the capture (the model is exact there), the others left out."""
    inside = {k: b for k, b in bases.items() if b + search.blocks[k].size <= capacity}
    left_out = sum(block.area for k, block in enumerate(search.blocks) if k not in inside)
    return Partial(left_out, search.offsets(inside))


def sat_search(
    capture: Capture, model: SearchModel, deadline: Deadline, tuned: CpsatParams
) -> tuple[Status, dict[int, int] | None, SearchModel]:
    """CP-SAT on ``capture`` (``model``: its search model) until ``deadline``: SOLVED with
    every block's base (in the returned model's numbering, the capture's own), INFEASIBLE
    (only with ``tuned.proves``), or TIMEOUT (also without OR-Tools, or past
    ``tuned.block_limit`` blocks), with the bases of its best solution above the top when
    it has one."""
    search, hint = model, None
    cp_model = _cp_model()
    if cp_model is None or len(model.blocks) > tuned.block_limit:
        return TIMEOUT, None, search
    if tuned.hint:
        found = _hint(capture, deadline, tuned)
        if found is not None:
            search, hint = found
    capacity = capture.memory.size
    sat = build(search, capacity, hint, tuned.area)
    if sat is None:  # a block without a valid base: the other routes say so
        return TIMEOUT, None, search
    solver = _solver(cp_model, tuned, max(0.001, deadline.left()))
    # The objective's least value is its value at a placement: one found is optimal, and
    # ends the solve.
    status = solve_interruptibly(solver, sat.model)
    if status == cp_model.MODEL_INVALID:
        raise RuntimeError(f"internal error: invalid CP-SAT model: {sat.model.validate()}")
    solved = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    if solved and solver.objective_value <= sat.floor:
        return SOLVED, sat.bases(solver.value), search
    proven = status == cp_model.INFEASIBLE or (solved and solver.best_objective_bound > sat.floor)
    if proven and tuned.proves:
        return INFEASIBLE, None, search
    return TIMEOUT, (sat.bases(solver.value) if solved else None), search


def _hint(
    capture: Capture, deadline: Deadline, tuned: CpsatParams
) -> tuple[SearchModel, dict[int, int]] | None:
    """The extended capture's model and every block's base there at the closest placement
    of greedy passes (a pass that fits: the capture's own model); None when none was found
    in time."""
    hint = Deadline.start(deadline.left() * tuned.hint_share)
    best = closest(capture, hint, descent=False)
    if best is None:
        return None
    wide = build_model(extended(capture, best.overflow))
    bases = wide.bases_of(best.placement.offsets)
    return (wide, bases) if len(bases) == len(wide.blocks) else None


def solve_interruptibly(solver: Any, model: Any) -> int:
    """``solver.solve(model)`` in a thread of its own, this one waiting on it: Ctrl-C then
    reaches Python here, which stops the search and raises. (CP-SAT's own handler, switched
    off here, would swallow Ctrl-C and leave SIGINT at its default afterwards; and a signal
    reaches Python only between bytecodes, never during a call into CP-SAT.) Every CP-SAT
    solve of tilefit's goes through here: route ``cpsat``'s and ``tilefit.peers.cpsat``'s."""
    solver.parameters.catch_sigint_signal = False
    answer: list[int | BaseException] = []

    def solve() -> None:
        try:
            answer.append(solver.solve(model))
        except BaseException as error:  # raised again in the caller's thread
            answer.append(error)

    before = _threads()
    worker = threading.Thread(target=solve, name="cpsat")
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.05)
    except BaseException:
        solver.stop_search()
        worker.join()
        _settle(before)
        raise
    if isinstance(answer[0], BaseException):
        raise answer[0]
    return answer[0]


def _threads() -> int | None:
    """The threads of this process, where the system says (Linux), else None."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


def _settle(before: int | None, patience: float = 2.0) -> None:
    """Wait, ``patience`` seconds at most, until the process has no more threads than
    ``before``: a search stopped early leaves one of CP-SAT's ending for a moment, and a
    process that exits meanwhile is aborted ("terminate called without an active
    exception", status 134, measured: 3 runs of 3) instead of exiting 130."""
    if before is None:
        return
    until = time.monotonic() + patience
    while (now := _threads()) is not None and now > before and time.monotonic() < until:
        time.sleep(0.01)


def _solver(cp_model: Any, tuned: CpsatParams, seconds: float) -> Any:
    solver = cp_model.CpSolver()
    parameters = solver.parameters
    parameters.max_time_in_seconds = seconds
    parameters.num_workers = tuned.workers
    parameters.random_seed = tuned.seed
    parameters.cp_model_probing_level = tuned.probing
    parameters.use_timetabling_in_no_overlap_2d = tuned.timetabling
    parameters.use_energetic_reasoning_in_no_overlap_2d = tuned.energetic
    return solver
