"""What a search answers, whichever part answers, and what the ladder answers: one ``Outcome``.

The portfolio, each of its members, a route, the bare exact search (``solve``) and the
least top's bisection (``minimize``) all give an ``Outcome``: a status, the placement when
solved, the route that decided, the infeasible subset when proven and whether it is
irreducible, the least top's bounds when minimising, the time and nodes spent, and,
undecided, the best partial placement seen. The decision ladder's ``Answer``
(``tilefit.verdicts.answer``) is an ``Outcome`` with the ladder's own facts (the verdict,
the bound that proved a capacity deficit, the closest placement); ``diagnose``'s
``Diagnosis`` is that with its evidence. Its vocabulary is checked where it is made: a
status or a route not in ``tilefit.search.routes`` is a bug (``ValueError``, not
``assert``).

Below the outcome, in the blocks' own numbering, the exact kernel and the stretches'
searches answer a ``Bases``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from tilefit.model.placement import Placement
from tilefit.search.routes import SOLVED, TIMEOUT, Status, check_answer


@dataclass(frozen=True)
class Partial:
    """Offsets for the requests of every block but those left out."""

    left_out: int  # area (bytes x steps) of the blocks left out
    offsets: Mapping[str, int]  # request id -> offset, for the blocks placed


def better(first: Partial | None, second: Partial | None) -> Partial | None:
    """The one leaving out less (the first on a tie)."""
    if first is None or (second is not None and second.left_out < first.left_out):
        return second
    return first


@dataclass(frozen=True, slots=True)
class Least:
    """Minimising: no placement ends below ``lower_bound``; the best found ends at
    ``best_top`` (None: none found)."""

    lower_bound: int
    best_top: int | None

    @property
    def optimal(self) -> bool:
        return self.best_top is not None and self.best_top == self.lower_bound


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """An answer of the search (``status`` given) or of the ladder (``Answer``: the status
    derived from its verdict and placement)."""

    status: Status = TIMEOUT
    placement: Placement | None = None  # when SOLVED (refereed at the ladder's one exit)
    route: str | None = None  # the route that decided (a route of the registry), if any
    subset: tuple[str, ...] | None = None  # proven: ids that cannot be placed together
    irreducible: bool = False  # dropping any one id of ``subset`` makes the rest placeable
    least: Least | None = None  # minimising: the least top's bounds
    partial: Partial | None = None  # undecided: the best partial placement seen, if any
    nodes: int = 0  # the exact search's nodes spent
    seconds: float = 0.0

    def __post_init__(self) -> None:
        self._check()
        object.__setattr__(self, "status", Status(self.status))  # a status, never its string

    def _check(self) -> None:
        """A search's outcome: a proof names its route, a time-out none, a placement comes
        with SOLVED alone and names the route that found it unless it came from outside
        the search (``minimize`` from a greedy pass's placement it did not better)."""
        if self.route is not None or self.status != SOLVED:
            check_answer(self.status, self.route)
        if (self.placement is not None) != (self.status == SOLVED):
            raise ValueError(f"status {self.status!r} with placement {self.placement is not None}")

    @property
    def irreducible_subset(self) -> tuple[str, ...] | None:
        """The subset, only where it was shown irreducible (``solve``'s)."""
        return self.subset if self.irreducible else None

    @classmethod
    def undecided(cls, seconds: float, partial: Partial | None = None, nodes: int = 0) -> Outcome:
        """A time-out, with the best partial placement seen."""
        return cls(status=TIMEOUT, seconds=seconds, partial=partial, nodes=nodes)

    def spending(self, nodes: int) -> Outcome:
        """The same outcome, ``nodes`` more of the exact search counted for it."""
        return replace(self, nodes=self.nodes + nodes)


@dataclass(frozen=True)
class Bases:
    """A search's answer in the blocks' own numbering (the exact kernel's, a stretch's):
    SOLVED with each block's base, INFEASIBLE (with, where known, blocks that cannot lie
    together), or TIMEOUT."""

    status: Status
    bases: dict[int, int] | None = None
    subset: frozenset[int] | None = None
