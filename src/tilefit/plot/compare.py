"""A placement given to the report (``--placement``), beside tilefit's least, on one axis.

The placement given is typically a toolchain's own (``tilefit import -o`` writes it as
``NAME.placement.json``). It is refereed before anything is drawn: a placement the
referee rejects, or one of another capture, is bad input (one line, exit 2). Both are
drawn in the same memory: the capture's, or for an import asked about less than its
toolchain's heap (``--capacity``), that heap, where the toolchain's plan is valid.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tilefit.model.capture import Capture
from tilefit.model.errors import InputError
from tilefit.model.placement import Placement, placement_top
from tilefit.model.words import counted
from tilefit.plot.layout import MemoryMap, placement_map
from tilefit.verdicts.check import check
from tilefit.verdicts.imported import at_own_heap

if TYPE_CHECKING:
    from tilefit.verdicts.answer import Answer


@dataclass(frozen=True)
class Comparison:
    """The placement given and tilefit's least placement of the same requests."""

    name: str  # how the page names the placement given: its file's name
    given: MemoryMap
    given_top: int
    best: MemoryMap | None  # tilefit's least (None: the search found none in the time)
    best_top: int | None
    proven: bool  # best_top is proven the least
    available: int  # the memory the capture asks about (drawn as a line when below)

    @property
    def saved(self) -> int:
        """Bytes tilefit's least ends below the placement given (0: not below)."""
        return 0 if self.best_top is None else max(0, self.given_top - self.best_top)


def common_memory(capture: Capture) -> Capture:
    """The capture in a memory holding both plans: an import's own heap when the capture
    asks about less (``--capacity``); any other capture as it is."""
    origin = capture.origin
    if origin is None or len(capture.memory.ranges) != 1 or origin.heap <= capture.memory.size:
        return capture
    return at_own_heap(capture)


def refereed(capture: Capture, placement: Placement, source: str) -> Capture:
    """The memory both plans are drawn in, once the referee accepts the placement given
    there; InputError naming ``source`` and the first violation otherwise."""
    wide = common_memory(capture)
    result = check(wide, placement)
    if not result.valid:
        first = result.violations[0] if result.violations else None
        what = "overlapping placements" if first is None else first.detail
        total = len(result.violations) + result.overlaps_not_listed
        raise InputError(
            "",
            f"the referee rejects this placement of {capture.name}: "
            f"{counted(total, 'violation')}, the first: {what} "
            "(tilefit check CAPTURE PLACEMENT lists them all)",
            source,
        )
    return wide


def comparison(
    capture: Capture,
    placement: Placement,
    source: str,
    name: str,
    time_limit: float,
    searched: Answer | None = None,
) -> Comparison:
    """The placement given, refereed, beside tilefit's least top: ``searched`` where it was
    already (``diagnose``'s, on an import), else searched within ``time_limit``."""
    from tilefit.verdicts.solving import solve

    wide = refereed(capture, placement, source)
    given = placement_map(wide, placement.offsets, f"{capture.name}: {name}")
    answer = searched or solve(wide, time_limit, minimize=True, workers=1)
    best = answer.placement
    least = answer.least
    return Comparison(
        name=name,
        given=given,
        given_top=placement_top(wide, placement.offsets),
        best=None
        if best is None
        else placement_map(wide, best.offsets, f"{capture.name}: tilefit's least"),
        best_top=None if best is None else placement_top(wide, best.offsets),
        proven=least is not None and least.optimal,
        available=capture.memory.size,
    )
