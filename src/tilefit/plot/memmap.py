"""The memory map drawn with matplotlib: steps across, addresses up.

Requests are boxes coloured by class with their ids where they fit. Address
space outside every range is shaded, ranges open only to some classes are
labelled, memory-element boundaries are dashed and the interleaved region is
marked along the left edge. For a failed attempt the failed unit's lifetime
band is tinted, the holes it met are highlighted with their sizes, and
``draw_failed_unit`` draws the unit beside the map at its true size. Every
overloaded window of the tile is hatched, its excess written above the map.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FuncFormatter
from matplotlib.transforms import blended_transform_factory

from tilefit.model.words import wrap_words
from tilefit.plot import colors as palette
from tilefit.plot.layout import (
    MIN_HOLE_PX,
    Box,
    FailedBand,
    MemoryMap,
    boxes_to_label,
    label_font,
    range_caption,
)
from tilefit.plot.ticks import address_ticks, byte_label, step_ticks
from tilefit.plot.windows import WindowMark, marks_to_label

_FONT_PT = 7.0


def draw_memory_map(ax: Axes, layout: MemoryMap, colors: dict[str, str]) -> list[Patch]:
    """Draw the map on ``ax``; returns legend handles for what was drawn."""
    ax.set_xlim(0, layout.horizon)
    ax.set_ylim(0, layout.size)
    ax.set_xlabel("step")
    ax.set_ylabel("address")
    ax.set_xticks(step_ticks(layout.horizon))
    ax.set_yticks(address_ticks(layout.size))
    ax.yaxis.set_major_formatter(byte_formatter(layout.size))
    handles: list[Patch] = []
    edge = blended_transform_factory(ax.transAxes, ax.transData)  # x in axes, y in bytes
    for lo, hi in layout.unavailable:
        ax.axhspan(lo, hi, facecolor=palette.UNAVAILABLE, edgecolor="#c4c4c4", hatch="///", lw=0)
    if layout.unavailable:
        handles.append(Patch(facecolor=palette.UNAVAILABLE, hatch="///", label="unavailable"))
    for r in layout.restricted:
        ax.axhspan(r.start, r.end, facecolor="#f4eef6", edgecolor="none", zorder=0)
        ax.text(
            0.01, r.end, range_caption(r), transform=edge, va="top", fontsize=7, color="#444444",
            zorder=6, bbox={"facecolor": "#ffffff", "alpha": 0.7, "lw": 0},
        )  # fmt: skip

    _draw_boxes(ax, layout.boxes, colors, layout)
    handles += [Patch(facecolor=colors[c], label=c) for c in layout.classes if c in colors]

    for boundary in layout.elements:
        ax.axhline(boundary, color="#333333", lw=0.6, ls=(0, (4, 3)), zorder=3)
    if layout.elements:
        handles.append(Patch(facecolor="none", edgecolor="#333333", ls="--", label="element"))
    if layout.interleaved is not None:
        lo, hi = layout.interleaved
        ax.add_patch(Rectangle((0, lo), 0.006, hi - lo, transform=edge, color="#17becf", zorder=4))
        ax.text(
            0.01, lo, f"interleaved from {byte_label(lo, layout.size)}", transform=edge,
            va="bottom", ha="left", fontsize=7,
            color="#0e7c87", zorder=6, bbox={"facecolor": "#ffffff", "alpha": 0.7, "lw": 0},
        )  # fmt: skip

    if layout.failure is not None:
        handles += _draw_band(ax, layout.failure, layout)
    if layout.windows:
        handles.append(draw_windows(ax, layout.windows, layout.horizon, labels="above"))
    return handles


def draw_windows(
    ax: Axes, marks: Sequence[WindowMark], horizon: int, labels: Literal["above", "bottom"]
) -> Patch:
    """Hatch every overloaded window over what is drawn; label the windows most over.

    ``labels`` says where their excess goes: ``above`` the axes, across, or up
    from the ``bottom`` inside them. Returns the legend handle.
    """
    for m in marks:
        ax.axvspan(
            m.start, m.end, facecolor=palette.OVERLOAD, alpha=0.10, edgecolor="none", zorder=4.5
        )
        ax.axvspan(
            m.start, m.end, facecolor="none", edgecolor=palette.OVERLOAD, hatch="////", lw=0,
            alpha=0.55, zorder=4.5,
        )  # fmt: skip
    width_px, _ = axes_pixels(ax)
    font_px = _FONT_PT * ax.figure.dpi / 72
    rotated = labels == "bottom"
    for m in marks_to_label(marks, width_px, horizon, font_px, rotated=rotated):
        centre = (m.start + m.end) / 2
        if rotated:
            ax.annotate(
                m.label, (centre, 0), xycoords=("data", "axes fraction"), xytext=(0, 4),
                textcoords="offset points", rotation=90, ha="center", va="bottom",
                fontsize=_FONT_PT, color=palette.OVERLOAD, fontweight="bold", zorder=6,
                bbox={"facecolor": "#ffffff", "alpha": 0.85, "lw": 0, "pad": 0.8},
            )  # fmt: skip
        else:
            ax.annotate(
                m.label, (centre, 1), xycoords=("data", "axes fraction"), xytext=(0, 2),
                textcoords="offset points", ha="center", va="bottom", fontsize=_FONT_PT,
                color=palette.OVERLOAD, fontweight="bold", annotation_clip=False,
            )  # fmt: skip
    return Patch(
        facecolor="none", edgecolor=palette.OVERLOAD, hatch="////",
        label="overloaded window (+bytes over)",
    )  # fmt: skip


def _draw_boxes(ax: Axes, boxes: Sequence[Box], colors: dict[str, str], layout: MemoryMap) -> None:
    if not boxes:
        return
    x0 = np.array([b.start for b in boxes], dtype=float)
    x1 = np.array([b.end for b in boxes], dtype=float)
    y0 = np.array([b.offset for b in boxes], dtype=float)
    y1 = y0 + np.array([b.size for b in boxes], dtype=float)
    verts = np.stack([np.c_[x0, y0], np.c_[x1, y0], np.c_[x1, y1], np.c_[x0, y1]], axis=1)
    faces = [colors.get(b.cls, "#9c9c9c") for b in boxes]
    width_px, height_px = axes_pixels(ax)
    # White edges part neighbours, but would wash out boxes a few pixels tall.
    edges = [
        "#ffffff" if b.size / layout.size * height_px > 4 else faces[k] for k, b in enumerate(boxes)
    ]
    ax.add_collection(
        PolyCollection(list(verts), facecolors=faces, edgecolors=edges, linewidths=0.4, zorder=2)
    )
    for b in boxes:  # a lifetime that wraps: its edge at the circle's seam dashed
        if b.seam is not None:
            ax.vlines(b.seam, b.offset, b.top, colors="#222222", linestyles=(0, (3, 2)), zorder=3)
    font_px = _FONT_PT * ax.figure.dpi / 72
    for label in boxes_to_label(layout, width_px, height_px, font_px):
        b = label.box
        ax.text(
            (b.start + b.end) / 2, b.offset + b.size / 2, label.text,
            rotation=90 if label.upright else 0,
            ha="center", va="center", fontsize=_FONT_PT, zorder=4, clip_on=True,
            color=palette.label_color(colors.get(b.cls, "#9c9c9c")),
        )  # fmt: skip


def _draw_band(ax: Axes, band: FailedBand, layout: MemoryMap) -> list[Patch]:
    for start, end in band.spans:  # two runs where it wraps around a cyclic capture's circle
        _draw_band_span(ax, band, layout, start, end)
    return [
        Patch(facecolor=palette.FAILED, alpha=0.2, label=f"lifetime of {band.id}"),
        Patch(facecolor=palette.HOLE, alpha=0.45, label="hole"),
    ]


def _draw_band_span(ax: Axes, band: FailedBand, layout: MemoryMap, start: int, end: int) -> None:
    ax.axvspan(start, end, facecolor=palette.FAILED, alpha=0.07, zorder=1)
    for x in (start, end):
        ax.axvline(x, color=palette.FAILED, lw=0.8, ls="--", zorder=3)
    width_px, height_px = axes_pixels(ax)
    font_px = _FONT_PT * ax.figure.dpi / 72
    least = MIN_HOLE_PX / height_px * layout.size
    for k, (lo, hi) in enumerate(band.holes):
        ax.add_patch(
            Rectangle(
                (start, lo), end - start, max(hi - lo, least),
                facecolor=palette.HOLE, edgecolor="#9a7b00", alpha=0.6, lw=0.6, zorder=3,
            )
        )  # fmt: skip
        text = f"{hi - lo:,} B"
        strip_px = max((hi - lo) / layout.size * height_px, MIN_HOLE_PX)
        width = (end - start) / layout.horizon * width_px
        font = label_font(width, strip_px, text, font_px)
        if k < 12 and font is not None:  # the largest holes; the side panel lists the rest
            ax.text(
                (start + end) / 2, (lo + hi) / 2, text, ha="center", va="center",
                fontsize=_FONT_PT * font / font_px, color="#0b3d0b", fontweight="bold", zorder=5,
                clip_on=True,
                bbox={"facecolor": "#ffffff", "alpha": 0.6, "lw": 0, "pad": 0.5},
            )  # fmt: skip


def draw_failed_unit(ax: Axes, band: FailedBand) -> None:
    """The failed unit beside the largest holes it met, all drawn to one scale, from 0 up."""
    bars = band.side_bars()
    ax.set_xlim(-0.6, len(bars) - 0.4)
    top = max(size for _, size in bars) * 1.6
    ax.set_ylim(0, top)
    ax.set_yticks(address_ticks(int(top)))
    ax.yaxis.set_major_formatter(byte_formatter(band.size))
    ax.yaxis.tick_right()
    ax.tick_params(axis="y", labelsize=7)
    ax.set_xticks(range(len(bars)), [name for name, _ in bars])
    ax.tick_params(axis="x", labelsize=7, rotation=90)
    cursor = 0
    for member_size in band.member_sizes:  # sequence members told apart by white edges
        ax.add_patch(
            Rectangle(
                (-0.4, cursor), 0.8, member_size, facecolor=palette.FAILED,
                edgecolor="#ffffff" if len(band.members) > 1 else palette.FAILED, lw=0.5,
            )
        )  # fmt: skip
        cursor += member_size
    for k, (_, size) in enumerate(bars[1:], start=1):
        ax.add_patch(
            Rectangle((k - 0.4, 0), 0.8, size, facecolor=palette.HOLE, alpha=0.6, ec="#9a7b00")
        )
    ax.set_title("failed unit\nvs. holes", fontsize=8)
    name = band.id if band.caption is None else f"{band.id}\n{_narrow(band.caption)}"
    ax.text(
        0.5, 0.98, f"{name}\nneeds {band.size:,} B\nalign {band.alignment}\n"
        f"largest hole\n{band.largest_hole:,} B",
        transform=ax.transAxes, ha="center", va="top", fontsize=7, color=palette.FAILED,
        fontweight="bold",
    )  # fmt: skip


def _narrow(label: str, width: int = 18) -> str:
    """A long label in lines between its words (after slashes, semicolons, spaces), so it
    stays inside the narrow panel; never cut inside a word, at most six lines."""
    return "\n".join(wrap_words(label, width, 6))


def axes_pixels(ax: Axes) -> tuple[float, float]:
    """The axes' drawing area in pixels, known before anything is rendered."""
    figure: Any = ax.figure
    box = ax.get_position()
    w, h = figure.get_size_inches() * figure.dpi
    return float(box.width * w), float(box.height * h)


def byte_formatter(scale: int) -> FuncFormatter:
    return FuncFormatter(lambda value, _pos: byte_label(value, scale))
