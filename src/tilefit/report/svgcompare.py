"""Two placements of one capture side by side on one address axis, the bytes saved marked.

Each panel is a group with its own ``data-map`` key, so the page's one script gives its
boxes the tooltips and selection every map has.
"""

from __future__ import annotations

from tilefit.plot.colors import class_colors
from tilefit.plot.compare import Comparison
from tilefit.plot.layout import MemoryMap
from tilefit.plot.ticks import address_ticks
from tilefit.report.svg import PLOT_LEFT, WIDTH, Frame, axes, esc, num
from tilefit.report.svgmap import box_labels, box_rects

HEIGHT = 600
GAP = 150  # between the panels: the tops' labels and the bytes saved
RIGHT = 1110
TOP, BOTTOM = 40.0, 540.0


def compare_svg(c: Comparison, class_index: dict[str, int]) -> str:
    """The placement given (left) and tilefit's least (right), one address scale."""
    size = c.given.size
    half = (RIGHT - PLOT_LEFT - GAP) / 2
    left = Frame(PLOT_LEFT, PLOT_LEFT + half, TOP, BOTTOM, c.given.horizon, size)
    right = Frame(RIGHT - half, RIGHT, TOP, BOTTOM, c.given.horizon, size)
    fills = class_colors(sorted(class_index, key=class_index.__getitem__))
    out = [
        f'<svg class="map compare" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{esc(c.name)} beside tilefit\'s least">'
    ]
    out += _panel("c0", left, c.given, class_index, fills, c.name)
    out += axes(left, address_ticks(size), "address", size)
    if c.best is not None:
        out += _panel("c1", right, c.best, class_index, fills, "tilefit's least")
        out += axes(right, [], "", size)
    out += _tops(c, left, right)
    out.append("</svg>")
    return "\n".join(out)


def _panel(
    key: str,
    frame: Frame,
    layout: MemoryMap,
    class_index: dict[str, int],
    fills: dict[str, str],
    title: str,
) -> list[str]:
    out = [
        f'<text class="st" x="{num((frame.left + frame.right) / 2)}" y="{num(frame.top - 12)}">'
        f"{esc(title)}</text>",
        f'<g data-map="{key}">',
    ]
    out += box_rects(frame, layout, class_index)
    out += box_labels(frame, layout, fills)
    out.append("</g>")
    return out


def _tops(c: Comparison, left: Frame, right: Frame) -> list[str]:
    """Each placement's top across both panels (the given one's value above its line,
    tilefit's below its own), the memory asked about when below them, and between the
    panels the bytes saved."""
    size = c.given.size
    middle = num((left.right + right.left) / 2)
    across = f"M{num(left.left)} {{y}}H{num(right.right)}"
    y_given = left.y(c.given_top)
    out = [
        f'<path class="cmp-given" d="{across.format(y=num(y_given))}"/>',
        f'<text class="cmp-t" x="{middle}" y="{num(y_given - 4)}">{c.given_top:,} B</text>',
    ]
    if c.available < size:
        y = num(left.y(c.available))
        out.append(f'<path class="cmp-avail" d="{across.format(y=y)}"/>')
        out.append(
            f'<text class="cmp-at" x="{num(right.right + 4)}" y="{y}">available '
            f"{c.available:,} B</text>"
        )
    if c.best_top is None:
        return out
    y_best = left.y(c.best_top)
    out += [
        f'<path class="cmp-best" d="{across.format(y=num(y_best))}"/>',
        f'<text class="cmp-t" x="{middle}" y="{num(y_best + 13)}">{c.best_top:,} B</text>',
    ]
    if c.saved:
        share = 100.0 * c.saved / c.given_top
        # Between the tops when there is room, else under tilefit's value; in two lines
        # that start right of the bar, so that no line of it crosses the bar.
        y_saved = (y_given + y_best) / 2 - 3 if y_best - y_given > 44 else y_best + 28
        bar = left.right + 10  # at the gap's left edge
        x = num(bar + 6)
        out.append(f'<path class="cmp-saved" d="M{num(bar)} {num(y_given)}V{num(y_best)}"/>')
        out.append(
            f'<text class="cmp-st" x="{x}" y="{num(y_saved)}">{c.saved:,} B saved'
            f'<tspan x="{x}" dy="14">({share:.1f}%)</tspan></text>'
        )
    return out
