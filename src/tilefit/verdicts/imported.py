"""An outside plan refereed: a toolchain's placement checked in the memory it gives it.

One rule for every plan that comes from outside tilefit and goes back to its
toolchain (``tilefit import``'s review, ``tilefit export``, ``tilefit replan``,
ExecuTorch's planner): the plan is checked against every rule of the capture in
the toolchain's own heap (``--capacity`` asks another question, of the capture),
grown to the plan's top where the plan reaches higher, since every toolchain here
sizes its memory to the plan it is given (XLA's temp allocation, TFLM's head,
IREE's slab, ExecuTorch's arena). How far the plan is from the bounds is the
heap's standing, beside the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tilefit.bounds.deficit import BoundReport, bound
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


def at_own_heap(capture: Capture, reach: int = 0) -> Capture:
    """The capture in the memory its toolchain gives a plan reaching ``reach``: its own
    heap (``--capacity`` undone), or ``reach`` where higher; a capture not imported as
    it is."""
    if capture.origin is None:
        return capture
    size = max(capture.origin.heap, reach, 1)
    if capture.memory.size == size:
        return capture
    return replace(capture, memory=with_capacity(capture.memory, size, "origin.heap"))


def referee(capture: Capture, placement: Placement) -> CheckResult:
    """Every rule ``placement`` breaks in the memory its toolchain gives it
    (``at_own_heap``, grown to the placement's top): the one referee of outside plans."""
    by_id = capture.request_by_id
    reach = max((o + by_id[i].size for i, o in placement.offsets.items() if i in by_id), default=0)
    return check(at_own_heap(capture, reach), placement)


def review(
    capture: Capture, placement: Placement, report: BoundReport | None = None
) -> ImportReview:
    """The toolchain's own placement refereed, and its heap beside the lower bound
    (``report``: the capture's bounds, where the caller has them already)."""
    report = bound(capture) if report is None else report
    return ImportReview(
        referee(capture, placement),
        report.lower_bound,
        report.aligned.top,
        heap_standing(capture, report.lower_bound, None, aligned=report.aligned.top),
    )
