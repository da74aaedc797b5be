"""The one answer of the decision ladder (``tilefit.verdicts.ladder``), whatever asked.

``diagnose``, ``solve`` (and ``--minimize``), the importers' standing of a toolchain's
own plan, ``batch``, ``whatif`` and the report all read an ``Answer``: the verdict,
the placement that decides it (refereed at the ladder's one exit), what proved it (the
bound that proves a capacity deficit, ``capacity``, or the route), the least top when
minimising, the closest placement and the bracket when nothing decided, and the seconds
and nodes spent. ``diagnose``'s ``Diagnosis`` is an ``Answer`` with its evidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tilefit.model.placement import Placement
from tilefit.search.routes import INFEASIBLE, SOLVED, TIMEOUT, Status
from tilefit.verdicts.verdict import Verdict

if TYPE_CHECKING:
    from tilefit.bounds.capacity import Capacity
    from tilefit.search.bracket import Bracket
    from tilefit.search.closest import Closest
    from tilefit.search.proofs.choice import ChoiceWhere
    from tilefit.verdicts.heap import HeapStanding


@dataclass(frozen=True, slots=True)
class Least:
    """``--minimize``: no placement ends below ``lower_bound``; the best found ends at
    ``best_top``."""

    lower_bound: int
    best_top: int | None

    @property
    def optimal(self) -> bool:
        return self.best_top is not None and self.best_top == self.lower_bound


@dataclass(frozen=True, slots=True)
class Answer:
    verdict: Verdict
    strategy: str | None = None  # what made the placement: a strategy or a search's name
    placement: Placement | None = None  # within the memory; refereed at the ladder's exit
    route: str | None = None  # the route that decided (``tilefit.search.routes``), if any
    search_status: Status | None = None  # the search's own answer, when it ran
    capacity: Capacity | None = None  # a bound proves no placement: which, and what must leave
    subset: tuple[str, ...] | None = None  # proven: ids that cannot be placed together
    irreducible: bool = False  # dropping any one id of ``subset`` makes the rest placeable
    closest: Closest | None = None  # undecided: the best placement in more memory
    bracket: Bracket | None = None  # undecided: where the least top lies
    choice: ChoiceWhere | None = None  # proven by the choice: its steps and stretches
    least: Least | None = None  # minimising: the least top's bounds
    heap: HeapStanding | None = None  # an imported capture: its toolchain's plan beside it
    nodes: int = 0  # the exact search's nodes spent
    seconds: float = 0.0
    cut: tuple[str, ...] = ()  # stages the deadline cut short, each with what it had done

    @property
    def status(self) -> Status:
        """``solve``'s word for it: ``solved``, ``infeasible`` or ``timeout``."""
        if self.placement is not None:
            return SOLVED
        return INFEASIBLE if self.verdict.proves else TIMEOUT

    @property
    def irreducible_subset(self) -> tuple[str, ...] | None:
        """The subset, only where it was shown irreducible (``solve``'s)."""
        return self.subset if self.irreducible else None
