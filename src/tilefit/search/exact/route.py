"""Route ``exact``: the exact search of the whole capture, as the prove member's first look
and its turns, and alone (``exact_search``: ``solve --node-limit``); and what every proof
answers, ``proven``: the subset it proved infeasible, shrunk in the time left."""

from __future__ import annotations

import time
from typing import ClassVar

from tilefit.model.deadline import Deadline
from tilefit.search.blocks import SearchModel
from tilefit.search.exact.solve import Budget, search_model
from tilefit.search.exact.subset import shrink
from tilefit.search.outcome import Outcome
from tilefit.search.params import DEFAULT, SearchParams
from tilefit.search.problem import Problem
from tilefit.search.proof import Proof
from tilefit.search.routes import EXACT_SEARCH, INFEASIBLE, SOLVED, TIMEOUT, Route


class Exact(Proof):
    """The exact search of the whole capture. In the prove member, a first look for a share
    of the time where no block is pinned (complete without enumeration, it often decides
    such tiles at once, as MiniMalloc's), after the proofs before it; then its turns with
    a node allowance that doubles (``tilefit.search.portfolio``)."""

    name = "exact"
    rank = 35  # before stretches and cpsat: without pinned blocks it often decides at once
    proves, places = True, True
    says = "the exact search was exhausted"
    strategy: ClassVar[str | None] = EXACT_SEARCH

    def run(self, problem: Problem, deadline: Deadline, params: SearchParams) -> Outcome | None:
        if problem.model.pinned:
            return None
        share = deadline.share(params.portfolio.exact_first_share)
        return turn(problem, deadline, Budget(share, None, params), params)


def turn(problem: Problem, deadline: Deadline, budget: Budget, params: SearchParams) -> Outcome:
    """One exact search of the whole capture within ``budget``: a decision (a proof's subset
    shrunk by ``deadline``), or, run out, an undecided one with the nodes it spent."""
    outcome = search_model(problem.model, budget)
    if outcome.status == INFEASIBLE:
        found = proven(problem, problem.model, Exact, deadline, params)
    elif outcome.bases is not None:
        placed = problem.model.placement(problem.capture, outcome.bases)
        found = Outcome(status=SOLVED, placement=placed, route=Exact.name, seconds=deadline.spent())
    else:
        found = Outcome.undecided(deadline.spent())
    return found.spending(budget.nodes)


def proven(
    problem: Problem, core: SearchModel, by: type[Route], deadline: Deadline, params: SearchParams
) -> Outcome:
    """A proof by route ``by``, with an infeasible subset of the model proven infeasible,
    shrunk in the time left (none past ``deadline``: it bounds the subset too)."""
    trial = params.portfolio.subset_trial_nodes
    ids, irreducible = shrink(core, deadline, trial, params)
    return Outcome(
        status=INFEASIBLE,
        route=by.name,
        subset=ids,
        irreducible=irreducible,
        seconds=deadline.spent(),
    )


def exact_search(
    problem: Problem,
    deadline: Deadline,
    node_limit: int | None = None,
    *,
    params: SearchParams = DEFAULT,
) -> Outcome:
    """A placement of every request of the problem's capture, a proof that none exists, or
    a time-out, by ``deadline``.

    With ``node_limit`` the answer depends only on the capture (not on the machine's
    speed) as long as the deadline is not reached first. ``params`` pace the search and
    switch the kernel's prunings (``Budget``).
    """
    started = time.monotonic()
    budget = Budget(deadline, node_limit, params)
    model = problem.model
    outcome = search_model(model, budget)
    placement = None
    if outcome.bases is not None:
        placement = model.placement(problem.capture, outcome.bases)
    route = None if outcome.status == TIMEOUT else Exact.name
    seconds = time.monotonic() - started
    return Outcome(
        status=outcome.status, placement=placement, route=route, seconds=seconds, nodes=budget.nodes
    )
