"""Find a placement or prove that none exists: ``solve``.

Pinned blocks (see ``tilefit.search.blocks``) are enumerated base by base; for
each of their arrangements the free blocks go through the canonical
branch-and-bound (``tilefit.search.kernel.branch``). That search restarts over three
static orderings with a node allowance that doubles each round, so one bad
ordering cannot hold it; with ``ExactParams.learning`` each restart first
ranks the blocks under which the runs before failed most (TelaMalloc). Any
run that ends without a placement proves infeasibility (for that pinned
arrangement); only the time or node limit ends a search undecided.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence

from tilefit.model.deadline import Deadline
from tilefit.search.blocks import SearchModel
from tilefit.search.kernel import layout
from tilefit.search.kernel.arrays import free_problem
from tilefit.search.kernel.driver import Run
from tilefit.search.kernel.ordering import LEARNED
from tilefit.search.kernel.sections import TooLarge
from tilefit.search.outcome import Bases
from tilefit.search.params import DEFAULT, KEY_LETTERS, SearchParams
from tilefit.search.routes import INFEASIBLE, SOLVED, TIMEOUT

KEYS = KEY_LETTERS  # the kernel's key codes: 0 width, 1 area, 2 section total


class Budget:
    """What a search may still spend: until a ``Deadline`` and, optionally, nodes (a node
    allowance is its own value: the answer then depends on the capture alone); with the
    parameters of the searches it pays for (``params.exact`` paces them,
    ``params.prunings`` switches the kernel's prunings). ``stretch_prunes`` counts the
    placements the stretch bound failed."""

    def __init__(
        self, deadline: Deadline, node_limit: int | None = None, params: SearchParams = DEFAULT
    ) -> None:
        self.deadline = deadline.at  # the kernel reads the moment, on the monotonic clock
        self.node_limit = node_limit
        self.params = params
        self.stretch_prunes = 0
        self.nodes = 0
        self.setup = 0.0  # seconds spent building the kernel's tables, before its first node
        self.pace = 0.0  # seconds per kernel node, from the last call (0: not known yet)

    def spent(self) -> bool:
        if self.node_limit is not None and self.nodes >= self.node_limit:
            return True
        return time.monotonic() >= self.deadline

    def allowance(self) -> int:
        """How many more nodes the next kernel call may visit: about ``slice`` seconds'
        worth at the pace measured (on a large capture one node can cost milliseconds,
        and a whole ``chunk`` then runs long past the deadline; where the pace changes
        within a call, the kernel stops at the deadline itself, ``kernel.CLOCK_EVERY``)."""
        exact = self.params.exact
        step = int(exact.slice / self.pace) if self.pace > 0 else exact.first_chunk
        step = max(1, min(exact.chunk, step))
        if self.node_limit is None:
            return step
        return max(0, min(step, self.node_limit - self.nodes))

    def measured(self, nodes: int, seconds: float) -> None:
        """A kernel call visited ``nodes`` in ``seconds``."""
        if nodes > 0:
            self.pace = seconds / nodes


def search_model(model: SearchModel, budget: Budget) -> Bases:
    """The exact search of a model (``solve`` is that of a capture): pinned blocks
    enumerated, the free ones searched, within the budget (nodes spent are added to it)."""
    pinned = model.pinned
    chosen = set(pinned)
    free = [k for k in range(len(model.blocks)) if k not in chosen]
    for pinned_at in _arrangements(model, pinned, budget):
        if pinned_at is None:
            return Bases(TIMEOUT)
        outcome = search_free(model, free, pinned_at, budget)
        if outcome.status != INFEASIBLE:
            return outcome
    return Bases(INFEASIBLE)


def _arrangements(
    model: SearchModel, pinned: Sequence[int], budget: Budget
) -> Iterator[dict[int, int] | None]:
    """Every valid set of bases for the pinned blocks (None once the budget is spent)."""
    at: dict[int, int] = {}

    def place(depth: int) -> Iterator[dict[int, int] | None]:
        if depth == len(pinned):
            yield dict(at)
            return
        k = pinned[depth]
        block = model.blocks[k]
        for lo, hi in block.bases:
            base = lo + (block.residue - lo) % block.modulus
            while base <= hi:
                budget.nodes += 1
                if budget.spent():
                    yield None
                    return
                if _fits_pinned(model, k, base, at):
                    at[k] = base
                    yield from place(depth + 1)
                    del at[k]
                base += block.modulus

    return place(0)


def _fits_pinned(model: SearchModel, k: int, base: int, at: dict[int, int]) -> bool:
    """Whether block k at base clashes with no pinned block already standing."""
    for j, other_base in at.items():
        if model.collision(k, base, j, other_base) is not None:
            return False
    for mine, theirs in model.partners(k):
        if theirs.block == k:
            where = base
        elif theirs.block in at:
            where = at[theirs.block]
        else:
            continue
        ea = model.side_elements(mine, base)
        eb = model.side_elements(theirs, where)
        if ea[0] <= eb[1] and eb[0] <= ea[1]:
            return False
    return True


def search_free(
    model: SearchModel, free: Sequence[int], pinned_at: dict[int, int], budget: Budget
) -> Bases:
    params = budget.params
    began = time.monotonic()
    try:
        most = _members_in_time(budget, began)
        problem = free_problem(model, free, pinned_at, params.prunings, most)
    except TooLarge:  # more than memory holds: no answer, as if out of time
        return Bases(TIMEOUT)
    finally:
        budget.setup += time.monotonic() - began
    if problem.infeasible:
        return Bases(INFEASIBLE)
    if not free:
        return Bases(SOLVED, dict(pinned_at))
    keyorders = [[KEYS.index(c) for c in key] for key in params.exact.orderings]
    if params.exact.learning:  # the blocks behind the most backtracking first
        keyorders = [[LEARNED, *keyorder] for keyorder in keyorders]
    learned = None
    allowance = max(len(free), 1)
    while True:
        allowance *= 2
        for keyorder in keyorders:
            run = Run(problem, keyorder, params.exact, learned)
            status = _drive(run, allowance, budget)
            learned = run.learned_counts()
            budget.stretch_prunes += run.stretch_prunes
            if status == layout.FOUND:
                return Bases(SOLVED, {**pinned_at, **run.bases()})
            if status == layout.EXHAUSTED:
                return Bases(INFEASIBLE)
            if budget.spent():
                return Bases(TIMEOUT)


def _members_in_time(budget: Budget, now: float) -> int:
    """The most section members a search may build its tables for: what memory holds
    (``members_most``), and what ``build_share`` of the time to its deadline builds at
    ``member_seconds`` each (the build reads no clock: S_1's tables ran seconds past a
    deadline under load)."""
    exact = budget.params.exact
    left = budget.deadline - now
    if math.isinf(left):
        return exact.members_most
    in_time = int(max(left, 0.0) * exact.build_share / exact.member_seconds)
    return min(exact.members_most, max(in_time, exact.members_always))


def _drive(run: Run, allowance: int, budget: Budget) -> int:
    """Advance one run up to ``allowance`` nodes, checking the budget between chunks."""
    status = run.status
    while status == layout.RUNNING and run.nodes < allowance:
        step = budget.allowance()
        if step <= 0 or budget.spent():
            break
        before = run.nodes
        began = time.monotonic()
        status = run.advance(min(allowance, before + step), budget.deadline)
        budget.measured(run.nodes - before, time.monotonic() - began)
        budget.nodes += run.nodes - before
    return status
