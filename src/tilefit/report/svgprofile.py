"""The live-storage profile as inline SVG, with the same step axis as the maps.

A long capture has more runs of equal steps than the picture has pixels, so
runs are gathered into columns about one pixel wide: each column shows the
run with the most bytes live in it (the peak always shows at its true height)
and the lowest support-aware limit in it. The page's tooltip reads the same
columns. Overloaded windows are hatched, their excess written above the frame.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass

from tilefit.plot.series import ProfileSeries, peak_caption
from tilefit.plot.ticks import address_ticks
from tilefit.report.svg import PLOT_LEFT, PLOT_RIGHT, WIDTH, Frame, axes, esc, num
from tilefit.report.svgwindows import ROW, window_marks_svg

HEIGHT = 330  # and ROW more above the frame when the tile has overloaded windows


@dataclass(frozen=True, slots=True)
class Column:
    start: int  # steps [start, end)
    end: int
    live: tuple[int, ...]  # bytes live by class, of the fullest run in the column
    limit: int | None


def profile_frame(series: ProfileSeries) -> Frame:
    row = ROW if series.windows else 0.0
    scale = math.ceil(series.top * 1.12)
    return Frame(PLOT_LEFT, PLOT_RIGHT, 12 + row, 280 + row, series.horizon, scale)


def columns(series: ProfileSeries, frame: Frame) -> tuple[Column, ...]:
    """The runs of the profile, gathered into columns of at most about one pixel."""
    runs = [
        Column(series.steps[k], series.steps[k + 1], series.live[k], _limit(series, k))
        for k in range(len(series.live))
    ]
    pixels = int(frame.width)
    if len(runs) <= pixels:
        return tuple(runs)
    # Column c covers steps [bounds[c], bounds[c + 1]): whole steps, none shared.
    bounds = [c * series.horizon // pixels for c in range(pixels)] + [series.horizon]
    best: dict[int, Column] = {}
    for run in runs:
        first = bisect_right(bounds, run.start) - 1
        last = bisect_right(bounds, run.end - 1) - 1
        for c in range(first, last + 1):
            held = best.get(c)
            if held is None:
                best[c] = Column(bounds[c], bounds[c + 1], run.live, run.limit)
            else:
                fuller = run.live if sum(run.live) > sum(held.live) else held.live
                best[c] = Column(held.start, held.end, fuller, _lower(held.limit, run.limit))
    merged: list[Column] = []
    for c in sorted(best):
        col = best[c]
        if merged and (merged[-1].live, merged[-1].limit) == (col.live, col.limit):
            merged[-1] = Column(merged[-1].start, col.end, col.live, col.limit)
        else:
            merged.append(col)
    return tuple(merged)


def profile_svg(series: ProfileSeries, class_index: dict[str, int]) -> str:
    frame = profile_frame(series)
    cols = columns(series, frame)
    height = HEIGHT + (ROW if series.windows else 0)
    out = [
        f'<svg class="profile" viewBox="0 0 {WIDTH} {num(height)}" role="img" '
        f'aria-label="live storage by step" data-left="{num(frame.left)}" '
        f'data-right="{num(frame.right)}" data-horizon="{series.horizon}">'
    ]
    # Cumulative stacks painted top-down, each to the baseline, so each class shows its share.
    for k in reversed(range(len(series.classes))):
        heights = [sum(c.live[: k + 1]) for c in cols]
        out.append(
            f'<path class="k{class_index[series.classes[k]]}" d="{_steps(frame, cols, heights)}'
            f'V{num(frame.bottom)}H{num(frame.left)}Z"/>'
        )
    y = num(frame.y(series.available))
    out.append(f'<path class="avail" d="M{num(frame.left)} {y}H{num(frame.right)}"/>')
    out.append(
        f'<text class="availl" x="{num(frame.right + 4)}" y="{y}">'
        f"available {series.available:,} B</text>"
    )
    if series.limit is not None:
        limits = [c.limit if c.limit is not None else series.available for c in cols]
        out.append(f'<path class="limit" d="{_steps(frame, cols, limits)}"/>')
        out.append(
            f'<text class="limitl" x="{num(frame.right + 4)}" '
            f'y="{num(frame.y(limits[-1]) + 12)}">support-aware limit</text>'
        )
    out += window_marks_svg(frame, series.windows, frame.top - 5)
    px, py = frame.x(series.peak_step), frame.y(series.lower_bound)
    anchor, dx = ("start", 8) if series.peak_step < series.horizon * 0.6 else ("end", -8)
    out.append(
        f'<path class="peak" d="M{num(px)} {num(frame.top)}V{num(frame.bottom)}"/>'
        f'<path class="peakm" d="M{num(px)} {num(py)}l-6 -10h12z"/>'
        f'<text class="peakl" text-anchor="{anchor}" x="{num(px + dx)}" '
        f'y="{num(max(py - 14, frame.top + 12))}">{esc(peak_caption(series))}</text>'
    )
    out += axes(frame, address_ticks(frame.scale), "bytes live", frame.scale)
    out.append(
        f'<rect class="hover" x="{num(frame.left)}" y="{num(frame.top)}" '
        f'width="{num(frame.width)}" height="{num(frame.bottom - frame.top)}"/>'
    )
    out.append("</svg>")
    return "\n".join(out)


def _steps(frame: Frame, cols: tuple[Column, ...], values: list[int]) -> str:
    parts = [f"M{num(frame.left)} {num(frame.y(values[0]))}"]
    for k, col in enumerate(cols):
        if k:
            parts.append(f"V{num(frame.y(values[k]))}")
        parts.append(f"H{num(frame.x(col.end))}")
    return "".join(parts)


def _limit(series: ProfileSeries, k: int) -> int | None:
    return series.limit[k] if series.limit is not None else None


def _lower(a: int | None, b: int | None) -> int | None:
    if a is None or b is None:
        return a if b is None else b
    return min(a, b)
