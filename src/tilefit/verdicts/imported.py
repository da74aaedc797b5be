"""An imported plan refereed: the toolchain's own placement checked, and where its heap stands.

The toolchain's offsets are checked in exactly the memory the toolchain used
(``--capacity`` asks another question, of the capture), beside the live
lower bound of its requests.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tilefit.bounds.deficit import bound
from tilefit.model.capture import Capture
from tilefit.model.edits import with_capacity
from tilefit.model.placement import Placement
from tilefit.verdicts.check import CheckResult, check
from tilefit.verdicts.heap import HeapStanding, heap_standing


@dataclass(frozen=True, slots=True)
class ImportReview:
    check: CheckResult  # the toolchain's placement, refereed at its own heap
    lower_bound: int  # the live lower bound of the requests
    aligned_top: int  # no placement has a lower top: the aligned bound's (AlignedBound.top)
    standing: HeapStanding | None


def at_own_heap(capture: Capture) -> Capture:
    """The capture in exactly the memory its toolchain used (``--capacity`` undone)."""
    if capture.origin is None or capture.memory.size == capture.origin.heap:
        return capture
    return replace(
        capture, memory=with_capacity(capture.memory, capture.origin.heap, "origin.heap")
    )


def review(capture: Capture, placement: Placement) -> ImportReview:
    """The toolchain's own placement refereed, and its heap beside the lower bound."""
    report = bound(capture)
    lower = report.lower_bound
    return ImportReview(
        check(at_own_heap(capture), placement),
        lower,
        report.aligned.top,
        heap_standing(capture, lower, None, aligned=report.aligned.top),
    )
