"""Two placements of one capture side by side on one address axis (``tilefit plot
--beside``): the placement given, tilefit's least, each top across both, the bytes saved."""

from __future__ import annotations

from matplotlib.figure import Figure

from tilefit.plot.colors import class_colors
from tilefit.plot.compare import Comparison
from tilefit.plot.memmap import draw_memory_map

WIDTH, HEIGHT, DPI = 12.0, 6.75, 100
GIVEN, BEST, AVAILABLE = "#a11b1c", "#1a6b1a", "#333333"


def beside_figure(c: Comparison) -> Figure:
    fig = Figure(figsize=(WIDTH, HEIGHT), dpi=DPI)
    grid = fig.add_gridspec(1, 2, left=0.085, right=0.985, bottom=0.09, top=0.86, wspace=0.08)
    colors = class_colors(c.given.classes)
    left = fig.add_subplot(grid[0, 0])
    draw_memory_map(left, c.given, colors)
    left.set_title(c.name, fontsize=9)
    axes = [left]
    if c.best is not None:
        right = fig.add_subplot(grid[0, 1], sharey=left)
        draw_memory_map(right, c.best, colors)
        right.set_ylabel("")
        right.set_title("tilefit's least", fontsize=9)
        axes.append(right)
    size = c.given.size
    for ax in axes:
        ax.set_ylim(0, size * 1.04)  # the given top, often the memory's, not on the frame
        ax.axhline(c.given_top, color=GIVEN, lw=1.2, ls=(0, (6, 3)), zorder=5)
        if c.best_top is not None:
            ax.axhline(c.best_top, color=BEST, lw=1.2, zorder=5)
        if c.available < size:
            ax.axhline(c.available, color=AVAILABLE, lw=1, ls=(0, (2, 3)), zorder=5)
    fig.suptitle(_title(c), x=0.01, ha="left", fontsize=10, fontweight="bold")
    return fig


def _title(c: Comparison) -> str:
    given = f"{c.name}: {c.given_top:,} B (dashed red)"
    if c.best_top is None:
        return f"{given}; tilefit found no placement in the time given"
    best = f"tilefit's least: {c.best_top:,} B (green)"
    if not c.saved:
        return f"{given}; {best}, not lower"
    share = 100.0 * c.saved / c.given_top
    return f"{given}; {best}: {c.saved:,} B saved ({share:.1f}%)"
