"""Why a capture is infeasible: an irreducible infeasible subset of its units.

A deletion filter: drop units and keep them out while the rest is still
infeasible, first in large chunks (a core of a few units in a tile of
hundreds goes in a few searches), then one by one. What remains cannot be
placed together, and removing any one of its units makes it placeable (each
of those checks was a search that ended, not a time-out; a subset of a
placeable set is placeable, so the checks made before later removals still
hold).
"""

from __future__ import annotations

from tilefit.model.deadline import Deadline
from tilefit.search.blocks import SearchModel
from tilefit.search.exact.solve import Budget, search_model
from tilefit.search.params import DEFAULT, SearchParams
from tilefit.search.problem import Problem
from tilefit.search.routes import INFEASIBLE, SOLVED


def irreducible_subset(problem: Problem, deadline: Deadline) -> tuple[str, ...] | None:
    """Unit ids (requests outside sequences, or sequences), in capture order.

    None when the capture is not proven infeasible, or when ``deadline`` ends the filter
    before it is done (the proof and the filter share it).
    """
    model = problem.model
    if search_model(model, Budget(deadline)).status != INFEASIBLE:
        return None
    ids, irreducible = shrink(model, deadline)
    return ids if irreducible else None


def shrink(
    model: SearchModel,
    deadline: Deadline,
    trial_nodes: int | None = None,
    params: SearchParams = DEFAULT,
) -> tuple[tuple[str, ...], bool]:
    """The block ids of an infeasible subset of a model proven infeasible, and whether
    it is irreducible.

    A trial that ends undecided (the deadline, or ``trial_nodes`` for one
    trial) keeps its blocks: the subset is still infeasible, just perhaps not
    irreducible.
    """
    keep = list(range(len(model.blocks)))
    irreducible = True
    chunk = max(1, len(keep) // 2)
    while True:
        i = 0
        while i < len(keep):
            trial = keep[:i] + keep[i + chunk :]
            budget = Budget(deadline, trial_nodes, params)
            status = search_model(model.restricted(frozenset(trial)), budget).status
            if status == INFEASIBLE:
                keep = trial
                continue
            if status != SOLVED:
                irreducible = False
                if deadline.passed():
                    return tuple(model.blocks[k].id for k in keep), False
            i += chunk
        if chunk == 1:
            return tuple(model.blocks[k].id for k in keep), irreducible
        chunk = max(1, chunk // 2)
