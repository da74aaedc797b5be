"""Overloaded windows in the report's SVG: a hatched band over each window's steps, and
the bytes over written in a row above the frame.

The bands are filled with the page's ``#over`` pattern (``assets.HATCH``) and
let the pointer through (``pointer-events: none``), so the boxes under them
keep their tooltips; the profile's tooltip names the window a step belongs to.
"""

from __future__ import annotations

from collections.abc import Sequence

from tilefit.plot.windows import WindowMark, marks_to_label
from tilefit.report.svg import Frame, esc, num

ROW = 16.0  # view units added above a frame for the labels
FONT = 10.0


def window_marks_svg(frame: Frame, marks: Sequence[WindowMark], label_y: float) -> list[str]:
    """The bands over the frame, and the labels of those that have room, at ``label_y``."""
    out: list[str] = []
    height = num(frame.bottom - frame.top)
    for m in marks:
        x0, x1 = frame.x(m.start), frame.x(m.end)
        out.append(
            f'<rect class="win" data-w="{m.number - 1}" x="{num(x0)}" y="{num(frame.top)}" '
            f'width="{num(max(x1 - x0, 1.0))}" height="{height}"/>'
        )
    for m in marks_to_label(marks, frame.width, frame.horizon, FONT):
        centre = frame.x((m.start + m.end) / 2)
        out.append(f'<text class="winl" x="{num(centre)}" y="{num(label_y)}">{esc(m.label)}</text>')
    return out
