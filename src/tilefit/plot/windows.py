"""Overloaded windows as drawn: a band over each window's steps, labelled with its excess.

Every picture of a tile with a capacity deficit marks every overloaded window
(``tilefit.bounds.overload``), not only the peak: a user who trims the worst
step alone fails again at the next. The matplotlib and the SVG drawings share
the marks and the choice of which ones carry a label.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tilefit.bounds.overload import Window

MAX_WINDOW_LABELS = 24  # beyond this many, only the windows most over get a label


@dataclass(frozen=True, slots=True)
class WindowMark:
    """One overloaded window: steps [start, end), the bytes over at its worst step."""

    number: int  # 1, 2, ... in time order, as `tilefit bound` numbers them
    start: int
    end: int
    worst_step: int
    excess: int
    must_leave: int

    @property
    def label(self) -> str:
        return f"+{self.excess:,} B"

    @property
    def steps(self) -> str:
        """The window's steps as the text output writes them: ``54`` or ``[40, 43)``."""
        return str(self.start) if self.end == self.start + 1 else f"[{self.start}, {self.end})"


def window_marks(windows: Sequence[Window]) -> tuple[WindowMark, ...]:
    return tuple(
        WindowMark(k, w.start, w.end, w.worst.start, w.excess, w.must_leave)
        for k, w in enumerate(windows, 1)
    )


def marks_to_label(
    marks: Sequence[WindowMark], width: float, horizon: int, font: float, *, rotated: bool = False
) -> tuple[WindowMark, ...]:
    """The marks whose label, centred on the window, overlaps no other label.

    The plot is ``width`` wide for ``horizon`` steps and labels are ``font``
    high, written across (or up, when ``rotated``). Labels go to the windows
    most over first (the earliest on ties), at most MAX_WINDOW_LABELS; they
    come back in time order.
    """
    taken: list[tuple[float, float]] = []
    chosen: list[WindowMark] = []
    for m in sorted(marks, key=lambda m: (-m.excess, m.start)):
        if len(chosen) == MAX_WINDOW_LABELS:
            break
        centre = (m.start + m.end) / 2 / horizon * width
        half = (font * 1.3 if rotated else len(m.label) * font * 0.62 + 4) / 2
        if all(centre + half <= lo or hi <= centre - half for lo, hi in taken):
            taken.append((centre - half, centre + half))
            chosen.append(m)
    return tuple(sorted(chosen, key=lambda m: m.start))
