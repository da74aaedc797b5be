"""Which bound proves a capacity deficit, how far over it puts the tile, and what must leave.

Four bounds may each prove that no placement exists (``tilefit.bounds.deficit``): the
live storage lower bound, the support-aware bound, the aligned lower bound and, on a
cyclic capture, the meeting bound. Where more than one does, the answer names one, by
one rule, so that every renderer (the CLI's "decided by" line, a picture's caption,
``--json``, the report) says the same: the bound that puts the tile furthest over the
available storage, and on a tie the plainer one, in the order live, support, aligned,
meeting (the aligned and meeting deficits are never below the live one, so each is
named only where the padding, or the circle's arcs, alone add to it). The bytes that
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
    MEETING = "meeting"

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
    Bound.MEETING: (
        "the meeting bound: requests whose lifetimes meet pairwise on the circle need "
        "more bytes than available"
    ),
}

_SHORT = {
    Bound.LIVE: "the live bound",
    Bound.SUPPORT: "the support-aware bound",
    Bound.ALIGNED: "the aligned bound",
    Bound.MEETING: "the meeting bound",
}

_SPREAD = {
    Bound.ALIGNED: "with alignment padding",
    Bound.MEETING: "in requests whose lifetimes meet pairwise",
}
"""Where a bound whose need spans the steps finds it, in place of ``at step N``."""


@dataclass(frozen=True, slots=True)
class Capacity:
    """A capacity deficit as proven: by which bound, the bytes it puts the tile over the
    available storage and at which step, and the bytes that must leave before any
    placement can exist (``BoundReport.leaving``)."""

    bound: Bound
    over: int
    step: int | None  # None for the aligned and meeting bounds: their need spans the steps
    leaving: int

    @property
    def over_text(self) -> str:
        """``16,328 B over at step 54``, or for the aligned bound ``16 B over with alignment
        padding``: the figure every renderer gives."""
        where = f"at step {self.step}" if self.step is not None else _SPREAD[self.bound]
        return f"{self.over:,} B over {where}"


def capacity_of(report: BoundReport) -> Capacity | None:
    """The bound that proves a capacity deficit, by the module's one rule (None: no bound
    proves one)."""
    candidates: tuple[tuple[Bound, int, int | None], ...] = (
        (Bound.LIVE, report.deficit, report.peak_step),
        (Bound.SUPPORT, report.support.deficit, report.support.step),
        (Bound.ALIGNED, report.aligned.deficit, None),
        (Bound.MEETING, report.meeting_deficit, None),
    )
    # max keeps the first of equals: the plainer bound on a tie.
    bound, over, step = max(candidates, key=lambda c: c[1])
    if over <= 0:
        return None
    return Capacity(bound, over, step, report.leaving)
