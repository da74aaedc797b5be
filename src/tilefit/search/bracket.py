"""Where the least memory top lies when nothing decided: ``Bracket``.

The memory top T is the end address of the highest byte; ``solve --minimize``
asks for the least T at which a placement exists (every range cut at T, or the
memory extended above its top as ``tilefit.search.closest.extended`` does).
When the search decides nothing in time, that least top is still bracketed:
no placement ends below ``tilefit.bounds.top.top_lower_bound`` (the live peak with the
padding its alignments force, and each block's own lowest top), and the closest placement
found ends at its top. A tile whose bracket is narrow is nearly answered: it
needs at most ``lacks`` bytes more than it has, and fits in no less than
``lower``. Importing this module loads neither numba nor the search.
"""

from __future__ import annotations

from dataclasses import dataclass

from tilefit.bounds.top import top_lower_bound
from tilefit.model.capture import Capture
from tilefit.search.blocks import SearchModel


@dataclass(frozen=True)
class Bracket:
    """The least memory top holding a placement lies in ``[lower, upper]``."""

    lower: int  # no placement ends lower (``top_lower_bound``)
    upper: int  # the top of the closest placement found, which is valid there
    top: int  # the memory's own top
    available: int  # the memory's available storage

    def __post_init__(self) -> None:
        if not 0 <= self.lower <= self.upper:
            raise ValueError(f"bracket [{self.lower}, {self.upper}] is empty")

    @property
    def width(self) -> int:
        """Bytes between the bounds: how far the least top is from known."""
        return self.upper - self.lower

    @property
    def lacks(self) -> int:
        """Bytes above the memory's top the closest placement needs (0: it fits)."""
        return max(0, self.upper - self.top)

    def share(self, size: int) -> float:
        """``size`` as a share of the available storage (0.0 with none available)."""
        return size / self.available if self.available else 0.0


def bracket_of(capture: Capture, model: SearchModel, overflow: int) -> Bracket:
    """The bracket closed from above by a placement of ``capture`` (whose search model is
    ``model``) that reaches ``overflow`` bytes above its top (``tilefit.search.closest``)."""
    lower = top_lower_bound(capture, model.lowest_tops())
    top = capture.memory.size
    return Bracket(lower, top + overflow, top, capture.available)
