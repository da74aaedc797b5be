"""What runs a search: ``Search``, one narrow interface (``run(problem, deadline, params)``),
and its kind the prove member takes in turn, ``Proof``.

As XLA's ``HeapAlgorithm``: a route of the prove member is a ``Search``, and so are the
portfolio's members and the portfolio itself (``tilefit.search.portfolio``), each over
those below it. As OmniMalloc's ``BaseAllocator``: every proof registers itself by
naming itself (``tilefit.search.routes.Route``), and ``Proof.decide`` checks what it
answers for each of them (ValueError, not ``assert``): an answer that is the route's
own, a placement from a route that places, a proof from one that proves.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from tilefit.model.deadline import Deadline
from tilefit.search.outcome import Outcome
from tilefit.search.params import SearchParams
from tilefit.search.problem import Problem
from tilefit.search.routes import PROVE, TIMEOUT, Member, Route


class Search(ABC):
    """A search of a problem by a deadline: a decision, an undecided one carrying what it
    spent and kept (nodes, a partial placement), or None when it had nothing to say."""

    @abstractmethod
    def run(self, problem: Problem, deadline: Deadline, params: SearchParams) -> Outcome | None:
        """Search ``problem`` until ``deadline`` at the latest."""


class Proof(Route, Search):
    """A route of the prove member, run in rank order before its turns of the exact search
    (``tilefit.search.portfolio``), each with the member's problem, deadline and
    parameters: it takes its own share of the deadline (``Deadline.share``)."""

    member: ClassVar[Member] = PROVE

    def decide(self, problem: Problem, deadline: Deadline, params: SearchParams) -> Outcome | None:
        """``run``, its answer checked: decided, by this route."""
        found = self.run(problem, deadline, params)
        if found is not None and found.status != TIMEOUT and found.route != self.name:
            raise ValueError(f"route {self.name!r} answered as route {found.route!r}")
        return found
