"""A command that stopped at its limit short of what it asked: what it did not reach, and
the option that gives it more. ``diagnose``, ``solve`` and ``replan`` say it in one line
and in ``--json`` (``stopped``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tilefit.search.routes import TIMEOUT
from tilefit.verdicts.answer import Answer
from tilefit.verdicts.lower import worth_looking

if TYPE_CHECKING:
    from tilefit.verdicts.diagnose import Diagnosis

TIME_LIMIT = "--time-limit"
NODE_LIMIT = "--node-limit"


@dataclass(frozen=True, slots=True)
class Stopped:
    """Where the limit stopped a command and what would give it more."""

    before: str  # what it stopped before: "a verdict", "proving its plan the least"
    option: str = TIME_LIMIT  # the option that gives it more

    @property
    def limit(self) -> str:
        """The limit, as a sentence names it."""
        return "node limit" if self.option == NODE_LIMIT else "time limit"

    @property
    def text(self) -> str:
        more = f"a larger {self.option} gives it more"
        return f"stopped at its {self.limit} before {self.before}: {more}"


def stopped(answer: Answer, *, minimize: bool = False, option: str = TIME_LIMIT) -> Stopped | None:
    """How ``answer`` stopped short, if it did: nothing placed and nothing proven, or
    (``minimize``) a least top not proven; None when it has all it asked."""
    if answer.status == TIMEOUT:
        return Stopped("a placement or a proof that none exists", option)
    least = answer.least
    if minimize and least is not None and not least.optimal:
        return Stopped("proving its plan the least", option)
    return None


def diagnosis_stopped(d: Diagnosis, searched: bool = True) -> Stopped | None:
    """How ``diagnose`` stopped short, if it did: no verdict (where it ``searched``), or on
    an import whose least it looks for (``Diagnosis.lower``), that least not proven or
    not searched for at all, the time gone before it began."""
    if searched and d.status == TIMEOUT:
        return Stopped("a verdict")
    if d.lower is not None and d.lower.placement is not None:
        return stopped(d.lower, minimize=True)
    heap = d.heap
    if searched and heap is not None and not heap.looked and worth_looking(d):
        return Stopped(f"a search below {heap.tool}'s {heap.plan}")
    return None
