"""The live-storage profile drawn with matplotlib: bytes live per step, stacked by class.

Every overloaded window is hatched, its excess written up from the bottom of
the plot (the top holds the peak's caption).
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from tilefit.plot import colors as palette
from tilefit.plot.memmap import byte_formatter, draw_windows
from tilefit.plot.series import ProfileSeries, peak_caption
from tilefit.plot.ticks import address_ticks


def draw_profile(ax: Axes, series: ProfileSeries, colors: dict[str, str]) -> list[Patch | Line2D]:
    """Draw the profile on ``ax``; returns legend handles for what was drawn."""
    xs = np.array(series.steps, dtype=float)
    live = np.array(series.live, dtype=float).reshape(len(series.live), len(series.classes))
    # fill_between(step="post") reads y at every x, so the last run is repeated once.
    stacked = np.vstack([live, live[-1:]]).cumsum(axis=1) if len(live) else live
    handles: list[Patch | Line2D] = []
    below = np.zeros(len(xs))
    for k, cls in enumerate(series.classes):
        above = stacked[:, k]
        ax.fill_between(xs, below, above, step="post", color=colors[cls], lw=0)
        handles.append(Patch(facecolor=colors[cls], label=cls))
        below = above
    ax.axhline(series.available, color="#000000", lw=1.2)
    handles.append(
        Line2D([], [], color="#000000", lw=1.2, label=f"available {series.available:,} B")
    )
    if series.limit is not None:
        limit = np.array([*series.limit, series.limit[-1]], dtype=float)
        ax.step(xs, limit, where="post", color="#7b3294", lw=1.2, ls="--")
        handles.append(Line2D([], [], color="#7b3294", ls="--", label="support-aware limit"))
    ax.axvline(series.peak_step, color=palette.PEAK, lw=0.9, ls=":")
    ax.plot([series.peak_step], [series.lower_bound], marker="v", color=palette.PEAK, ms=7)
    ax.annotate(
        peak_caption(series),
        (series.peak_step, series.lower_bound),
        xytext=(6, 6),
        textcoords="offset points",
        fontsize=8,
        color=palette.PEAK,
        fontweight="bold",
        ha="left" if series.peak_step < series.horizon * 0.7 else "right",
        bbox={"facecolor": "#ffffff", "alpha": 0.8, "lw": 0, "pad": 1},
    )
    ax.set_xlim(0, series.horizon)
    ax.set_ylim(0, series.top * 1.12)
    if series.windows:
        handles.append(draw_windows(ax, series.windows, series.horizon, labels="bottom"))
    ax.set_xlabel("step")
    ax.set_ylabel("bytes live")
    ax.set_yticks(address_ticks(int(series.top * 1.12)))
    ax.yaxis.set_major_formatter(byte_formatter(int(series.top)))
    return handles
