"""Why a capture is infeasible: an irreducible infeasible subset of its units.

A deletion filter: drop each unit in turn and keep it out when the rest is
still infeasible. What remains cannot be placed together, and removing any
one of its units makes it placeable (each of those checks was a search that
ended, not a time-out).
"""

from __future__ import annotations

from tilefit.model.capture import Capture
from tilefit.search.model import build_model
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
    keep = set(range(len(model.blocks)))
    for k in range(len(model.blocks)):
        trial = frozenset(keep - {k})
        status = search(model.restricted(trial), budget).status
        if status == INFEASIBLE:
            keep = set(trial)
        elif status != SOLVED:
            return None
    return tuple(model.blocks[k].id for k in sorted(keep))
