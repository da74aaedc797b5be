"""The one answer of the decision ladder (``tilefit.verdicts.ladder``), whatever asked.

``diagnose``, ``solve`` (and ``--minimize``), the importers' standing of a toolchain's
own plan, ``batch``, ``whatif`` and the report all read an ``Answer``: the search's
``Outcome`` (``tilefit.search.outcome``: the placement, the route, the subset, the least
top, the seconds and nodes), its status derived from the ladder's verdict, with what the
ladder adds: the verdict, what made the placement, the bound that proves a capacity
deficit (``capacity``), the closest placement and the bracket when nothing decided.
``diagnose``'s ``Diagnosis`` is an ``Answer`` with its evidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tilefit.search.outcome import Outcome
from tilefit.search.routes import INFEASIBLE, SOLVED, TIMEOUT, Status
from tilefit.verdicts.verdict import Verdict

if TYPE_CHECKING:
    from tilefit.bounds.capacity import Capacity
    from tilefit.search.bracket import Bracket
    from tilefit.search.closest import Closest
    from tilefit.search.proofs.choice import ChoiceWhere
    from tilefit.verdicts.heap import HeapStanding


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer(Outcome):
    """The ladder's outcome: ``status`` is ``solve``'s word for the verdict (``solved``
    with a placement, ``infeasible`` where the verdict proves none, else ``timeout``),
    whatever was given; ``route`` may name a bound's route (``pieces``)."""

    verdict: Verdict
    strategy: str | None = None  # what made the placement: a strategy or a search's name
    search_status: Status | None = None  # the search's own answer, when it ran
    capacity: Capacity | None = None  # a bound proves no placement: which, and what must leave
    closest: Closest | None = None  # undecided: the best placement in more memory
    bracket: Bracket | None = None  # undecided: where the least top lies
    choice: ChoiceWhere | None = None  # proven by the choice: its steps and stretches
    heap: HeapStanding | None = None  # an imported capture: its toolchain's plan beside it
    cut: tuple[str, ...] = ()  # stages the deadline cut short, each with what it had done

    def _check(self) -> None:
        if self.placement is not None:
            status = SOLVED
        else:
            status = INFEASIBLE if self.verdict.proves else TIMEOUT
        object.__setattr__(self, "status", status)
