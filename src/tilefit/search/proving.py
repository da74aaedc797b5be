"""What the prove member's routes share: ``Proving``, and the exact search's first look.

Each proof the prove member runs before its turns is a runner of the route registry
(``tilefit.search.routes.Route.runner``): a ``Proving`` in, a ``Decision`` or None out.
The ``Proving`` holds the capture, its search model (built once, by the caller), the
member's time and deadline, the parameters, and the budgets of its exact searches,
whose nodes the member reports.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from tilefit.model.capture import Capture
from tilefit.search.blocks import SearchModel
from tilefit.search.decision import Decision, Partial, better
from tilefit.search.exact.solve import Budget, search_model
from tilefit.search.exact.subset import shrink
from tilefit.search.params import SearchParams
from tilefit.search.routes import INFEASIBLE, SOLVED


@dataclass(frozen=True)
class Proving:
    """What the prove member's first proofs share."""

    capture: Capture
    model: SearchModel
    time_limit: float
    started: float
    deadline: float
    params: SearchParams
    budgets: list[Budget]
    partials: list[Partial] = field(default_factory=list)
    """Partial placements the routes found on the way (CP-SAT's best solution above the
    top): the member's time-out carries the best of them and its annealing's."""

    def budget(self, time_limit: float, node_limit: int | None = None) -> Budget:
        """A new budget for one exact search, counted among the member's."""
        self.budgets.append(Budget(time_limit, node_limit, self.params))
        return self.budgets[-1]

    def infeasible(self, core: SearchModel, route: str) -> Decision:
        """A proof by ``route``, with an infeasible subset of the model proven infeasible,
        shrunk in the time left (none past the deadline: the limit bounds the subset too)."""
        trial = self.params.portfolio.subset_trial_nodes
        ids, irreducible = shrink(core, self.deadline, trial, self.params)
        return Decision(INFEASIBLE, None, route, ids, irreducible, self.seconds())

    def closest(self, partial: Partial | None) -> Partial | None:
        """The best of ``partial`` and the routes' partial placements."""
        for other in self.partials:
            partial = better(partial, other)
        return partial

    def seconds(self) -> float:
        return time.monotonic() - self.started

    def over(self) -> bool:
        """The member's deadline has passed."""
        return time.monotonic() >= self.deadline

    def share(self, fraction: float) -> float:
        """The moment ``fraction`` of the member's time from now ends (the member's deadline
        at the latest: a route run after others gets what is left of its share)."""
        return min(self.deadline, time.monotonic() + self.time_limit * fraction)

    def exact(self, budget: Budget) -> Decision | None:
        """The exact search within ``budget``: a decision, or None when it ran out."""
        outcome = search_model(self.model, budget)
        if outcome.status == INFEASIBLE:
            return self.infeasible(self.model, "exact")
        if outcome.bases is not None:
            found = self.model.placement(self.capture, outcome.bases)
            return Decision(SOLVED, found, "exact", seconds=self.seconds())
        return None


def first_look(p: Proving) -> Decision | None:
    """Route ``exact``'s first look: the exact search for a share of the time, where no
    block is pinned (complete without enumeration, it often decides such tiles at once,
    as MiniMalloc's)."""
    if p.model.pinned:
        return None
    return p.exact(p.budget(p.share(p.params.portfolio.exact_first_share) - time.monotonic()))
