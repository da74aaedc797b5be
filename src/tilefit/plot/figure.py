"""Figures of fixed pixel size, saved byte for byte the same for the same input."""

from __future__ import annotations

from pathlib import Path

import matplotlib
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from tilefit.formats.save import atomic_path
from tilefit.model.errors import InputError
from tilefit.plot import colors as palette
from tilefit.plot.caption import VerdictCaption
from tilefit.plot.colors import class_colors
from tilefit.plot.layout import MemoryMap
from tilefit.plot.memmap import draw_failed_unit, draw_memory_map
from tilefit.plot.profile import draw_profile
from tilefit.plot.series import ProfileSeries

DPI = 100
WIDTH = 12.0  # inches: 1200 px
MAP_HEIGHT = 6.75
PROFILE_HEIGHT = 3.5
FORMATS = ("png", "svg")
TITLE_PT = 11.0


def tile_figure(
    layout: MemoryMap | None, series: ProfileSeries | None, verdict: VerdictCaption | None = None
) -> Figure:
    """The memory map, the live-storage profile, or the map above the profile (shared steps).

    ``verdict`` (``plot.caption.verdict_caption``) is written at the right of the
    title's line, in the verdict's colour.
    """
    if layout is None and series is None:
        raise ValueError("nothing to draw")
    heights = [h for h, part in ((MAP_HEIGHT, layout), (PROFILE_HEIGHT, series)) if part]
    fig = Figure(figsize=(WIDTH, sum(heights) + 0.9), dpi=DPI)
    failed = layout is not None and layout.failure is not None
    grid = fig.add_gridspec(
        len(heights), 2 if failed else 1,
        height_ratios=heights, width_ratios=[10, 1.5] if failed else [1],
        left=0.085, right=0.94 if failed else 0.985, bottom=0.55 / fig.get_figheight(),
        top=1 - 1.0 / fig.get_figheight(), hspace=0.22 * len(heights) / sum(heights) * 4,
        wspace=0.04,
    )  # fmt: skip
    classes = tuple(
        dict.fromkeys([*(layout.classes if layout else ()), *(series.classes if series else ())])
    )
    colors = class_colors(classes)
    handles: list[Patch | Line2D] = []
    map_ax = None
    if layout is not None:
        map_ax = fig.add_subplot(grid[0, 0])
        handles += draw_memory_map(map_ax, layout, colors)
        if layout.failure is not None:
            side = fig.add_subplot(grid[0, 1])
            draw_failed_unit(side, layout.failure)
    if series is not None:
        ax = fig.add_subplot(grid[len(heights) - 1, 0], sharex=map_ax)
        handles += draw_profile(ax, series, colors)
    _title(fig, layout.title if layout is not None else "live storage by step", verdict)
    unique = list({str(h.get_label()): h for h in handles}.values())
    if unique:  # a capture with no request has nothing to name
        fig.legend(
            handles=unique, loc="upper left", ncol=min(len(unique), 9), fontsize=7,
            frameon=False, bbox_to_anchor=(0.07, 1 - 0.4 / fig.get_figheight()),
        )  # fmt: skip
    return fig


def _title(fig: Figure, title: str, verdict: VerdictCaption | None) -> None:
    """The title at the left, the verdict at the right of one line.

    Both shrink together (to 7 pt at least) when they would run into each other.
    """
    chars = len(title) + (len(verdict.text) if verdict else 0) + 4
    room = fig.get_figwidth() * 72 * 0.98  # points
    size = max(7.0, min(TITLE_PT, room / (chars * 0.64)))  # bold glyphs: about 0.64 em wide
    fig.suptitle(title, x=0.01, ha="left", fontsize=size, fontweight="bold")
    if verdict is not None:
        fig.text(
            0.99, 0.98, verdict.text, ha="right", va="top", fontsize=size, fontweight="bold",
            color=palette.VERDICT.get(verdict.verdict, palette.VERDICT_OTHER),
        )  # fmt: skip


def save_figure(fig: Figure, path: str | Path) -> None:
    """PNG or SVG by the file's suffix; text stays text in SVG, and no date is written."""
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise InputError(str(path), "the output must end in .png or .svg")
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "tilefit"}):
        metadata = {"Date": None} if suffix == "svg" else {"Software": None}
        with atomic_path(path) as temp:
            fig.savefig(temp, format=suffix, dpi=DPI, metadata=metadata)
