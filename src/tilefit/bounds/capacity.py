"""Which bound proves a capacity deficit, how far over it puts the tile, and what must leave.

Three bounds may each prove that no placement exists (``tilefit.bounds.deficit``): the
live storage lower bound, the support-aware bound and the aligned lower bound. Where
more than one does, the answer names one, by one rule, so that every renderer (the
CLI's "decided by" line, a picture's caption, ``--json``, the report) says the same:
the bound that puts the tile furthest over the available storage, and on a tie the
plainer one, in the order live, support, aligned (the aligned deficit is never below
the live one, so it is named only where the padding alone adds to it). The bytes that
must leave are ``BoundReport.leaving``'s, whichever bound is named.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tilefit.bounds.deficit import BoundReport


class Bound(StrEnum):
    """A bound that proves a capacity deficit, in the order a tie names them."""

    LIVE = "live"
    SUPPORT = "support"
    ALIGNED = "aligned"

    @property
    def says(self) -> str:
        """What the bound showed, as a verdict's "decided by" says it."""
        return _SAYS[self]

    @property
    def short(self) -> str:
        """Its name in a few words, for a caption."""
        return _SHORT[self]


_SAYS = {
    Bound.LIVE: "the live storage lower bound: more bytes live at one step than available",
    Bound.SUPPORT: (
        "the support-aware bound: more bytes live at one step than the ranges their "
        "classes may use hold"
    ),
    Bound.ALIGNED: (
        "the aligned lower bound: the live bytes with the padding their alignments force "
        "need more than available"
    ),
}

_SHORT = {
    Bound.LIVE: "the live bound",
    Bound.SUPPORT: "the support-aware bound",
    Bound.ALIGNED: "the aligned bound",
}


@dataclass(frozen=True, slots=True)
class Capacity:
    """A capacity deficit as proven: by which bound, the bytes it puts the tile over the
    available storage and at which step, and the bytes that must leave before any
    placement can exist (``BoundReport.leaving``)."""

    bound: Bound
    over: int
    step: int | None  # None for the aligned bound: its need spans the steps
    leaving: int

    @property
    def over_text(self) -> str:
        """``16,328 B over at step 54``, or for the aligned bound ``16 B over with alignment
        padding``: the figure every renderer gives."""
        where = "with alignment padding" if self.step is None else f"at step {self.step}"
        return f"{self.over:,} B over {where}"


def capacity_of(report: BoundReport) -> Capacity | None:
    """The bound that proves a capacity deficit, by the module's one rule (None: no bound
    proves one)."""
    candidates: tuple[tuple[Bound, int, int | None], ...] = (
        (Bound.LIVE, report.deficit, report.peak_step),
        (Bound.SUPPORT, report.support.deficit, report.support.step),
        (Bound.ALIGNED, report.aligned.deficit, None),
    )
    # max keeps the first of equals: the plainer bound on a tie.
    bound, over, step = max(candidates, key=lambda c: c[1])
    if over <= 0:
        return None
    return Capacity(bound, over, step, report.leaving)
