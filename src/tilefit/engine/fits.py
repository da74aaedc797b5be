"""Fits: where in the free space a strategy puts the unit it is placing.

A fit is a name and a choice over a unit's ``Space``: the valid base offsets
(``lowest``) and the holes over the unit's lifetime (``holes``). A new fit is a
function of that space and one ``Fit(...)`` line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from tilefit.engine.uniform import BulkFit, lowest_offsets, smallest_holes
from tilefit.model.capture import Interval


class Space(Protocol):
    """The free space for one unit, given everything placed so far."""

    @property
    def size(self) -> int:
        """The unit's size: its members back to back."""
        ...

    def lowest(self, at: int) -> int | None:
        """The lowest valid base offset >= ``at``, or None when there is none."""
        ...

    def holes(self) -> Sequence[Interval]:
        """The unit's holes, in address order (see ``tilefit.engine.space``)."""
        ...


@dataclass(frozen=True, slots=True)
class Fit:
    """How a strategy chooses a unit's base offset among the free ones."""

    name: str
    choose: Callable[[Space], int | None]
    """The base offset for the unit, or None when it has no valid offset."""
    uniform: BulkFit | None = None
    """The same choice for a whole uniform capture at once, when the fit has one."""


def lowest_offset(space: Space) -> int | None:
    return space.lowest(0)


def smallest_hole(space: Space) -> int | None:
    """The lowest valid offset in the smallest hole that holds the unit (ties: lower hole).

    For a request every valid offset lies in a hole, so this is exactly the
    spec's rule. A sequence's holes are taken over its whole lifetime; one
    that fits only by interleaving its members' lifetimes with placed requests
    lies in no hole and then goes to its lowest valid offset.
    """
    size = space.size
    fitting = sorted((h for h in space.holes() if h[1] - h[0] >= size), key=_hole_rank)
    for start, end in fitting:
        base = space.lowest(start)
        if base is not None and base + size <= end:
            return base
    return space.lowest(0)


def _hole_rank(hole: Interval) -> tuple[int, int]:
    return hole[1] - hole[0], hole[0]


FIRST_FIT = Fit("first-fit", lowest_offset, lowest_offsets)
BEST_FIT = Fit("best-fit", smallest_hole, smallest_holes)

FITS: tuple[Fit, ...] = (FIRST_FIT, BEST_FIT)
_BY_NAME = {fit.name: fit for fit in FITS}


def parse_fit(text: str) -> Fit:
    fit = _BY_NAME.get(text)
    if fit is None:
        raise ValueError(f"unknown fit {text!r} (known: {', '.join(_BY_NAME)})")
    return fit
