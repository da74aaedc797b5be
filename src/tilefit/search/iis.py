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

from tilefit.capture import Capture
from tilefit.search.model import Model, build_model
from tilefit.search.solver import INFEASIBLE, SOLVED, Budget, search


def irreducible_subset(capture: Capture, time_limit: float) -> tuple[str, ...] | None:
    """Unit ids (requests outside sequences, or sequences), in capture order.

    None when the capture is not proven infeasible, or when the time limit
    ends the filter before it is done.
    """
    budget = Budget(time_limit)
    model = build_model(capture)
    if search(model, budget).status != INFEASIBLE:
        return None
    return subset_of(model, budget)


def subset_of(model: Model, budget: Budget) -> tuple[str, ...] | None:
    """The block ids of an irreducible infeasible subset of a model proven infeasible.

    None when the budget ends the filter first.
    """
    keep = list(range(len(model.blocks)))
    chunk = max(1, len(keep) // 2)
    while True:
        i = 0
        while i < len(keep):
            trial = keep[:i] + keep[i + chunk :]
            status = search(model.restricted(frozenset(trial)), budget).status
            if status == INFEASIBLE:
                keep = trial
            elif status == SOLVED:
                i += chunk
            else:
                return None
        if chunk == 1:
            return tuple(model.blocks[k].id for k in keep)
        chunk = max(1, chunk // 2)
