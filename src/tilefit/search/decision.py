"""What the search answers, whichever part answers: one ``Decision``.

The portfolio, each of its members, a route and the bare exact search (``solve``) all
give a ``Decision``: a status, the placement when solved, the route that decided, the
infeasible subset when proven, the time and nodes spent, and, undecided, the best
partial placement seen. Its vocabulary is checked where it is made: a status or a
route not in ``tilefit.search.routes`` is a bug (``ValueError``, not ``assert``).
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


@dataclass(frozen=True)
class Decision:
    """The search's answer."""

    status: Status
    placement: Placement | None  # when SOLVED (the caller's referee checks it: diagnose does)
    route: str | None  # the route that decided (a search route of the registry); None: time-out
    subset: tuple[str, ...] | None = None  # when INFEASIBLE: ids that cannot fit together
    irreducible: bool = False  # the subset loses its infeasibility without any one of its ids
    seconds: float = 0.0
    partial: Partial | None = None  # when TIMEOUT: the best partial placement seen, if any
    nodes: int = 0  # the exact search's nodes spent for it (0 where none ran)

    def __post_init__(self) -> None:
        check_answer(self.status, self.route)
        object.__setattr__(self, "status", Status(self.status))  # a status, never its string
        if (self.placement is not None) != (self.status == SOLVED):
            raise ValueError(f"status {self.status!r} with placement {self.placement is not None}")

    @classmethod
    def undecided(cls, seconds: float, partial: Partial | None = None, nodes: int = 0) -> Decision:
        """A time-out, with the best partial placement seen."""
        return cls(TIMEOUT, None, None, seconds=seconds, partial=partial, nodes=nodes)

    def spending(self, nodes: int) -> Decision:
        """The same decision, ``nodes`` more of the exact search counted for it."""
        return replace(self, nodes=self.nodes + nodes)
