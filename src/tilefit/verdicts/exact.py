"""The exact search as a verdict: solve (or minimize), then explain an infeasible capture.

An infeasible answer comes with an irreducible subset: units that cannot be
placed together, while dropping any one of them makes the rest placeable.
``solve`` and ``diagnose`` both ask this one function.

The search compiles its kernel with numba, so ``tilefit.search`` is imported
only when a search runs: commands that never search never load numba.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tilefit.model.capture import Capture
from tilefit.model.placement import Placement

if TYPE_CHECKING:
    from tilefit.search import MinimizeResult, SolveResult

EXACT_SEARCH = "exact-search"
"""The strategy name of a placement that the exact search found."""


@dataclass(frozen=True, slots=True)
class ExactResult:
    """The search's answer and, for an infeasible capture, its explanation."""

    result: SolveResult | MinimizeResult
    irreducible_subset: tuple[str, ...] | None  # when infeasible and found within the time

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
    subset_time_limit: float | None = None,
) -> ExactResult:
    """Solve ``capture`` (or, with ``minimize``, find its lowest memory top); when it
    is infeasible, look for an irreducible subset.

    The subset gets ``subset_time_limit`` seconds, or by default what the search
    left of ``time_limit``; none is looked for when no time is left.
    """
    from tilefit import search  # compiles its kernel on first use

    started = time.monotonic()
    if minimize:
        result: SolveResult | MinimizeResult = search.minimize(capture, time_limit)
    else:
        result = search.solve(capture, time_limit)
    subset = None
    if result.status == search.INFEASIBLE:
        budget = subset_time_limit
        if budget is None:
            budget = max(0.0, time_limit - (time.monotonic() - started))
        subset = search.irreducible_subset(capture, budget) if budget > 0 else None
    return ExactResult(result, subset)
