"""Small pieces of hand-written SVG: a plot frame with its axes, compact numbers, escaping."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from tilefit.plot.ticks import byte_label, step_ticks

WIDTH = 1200  # every picture is this wide in view units, so their step axes line up
PLOT_LEFT = 84
PLOT_RIGHT = 1030


def num(value: float) -> str:
    """A coordinate with at most one decimal, as short as it goes."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def esc(text: str) -> str:
    return escape(text, quote=True)


def byte_html(value: int) -> str:
    """``16,328 B`` in HTML, the unit kept on the number's line."""
    return f"{value:,}&#8239;B"


@dataclass(frozen=True, slots=True)
class Frame:
    """Steps [0, horizon) across [left, right], values [0, scale] up [bottom, top]."""

    left: float
    right: float
    top: float
    bottom: float
    horizon: int
    scale: int

    def x(self, step: float) -> float:
        return self.left + step / self.horizon * (self.right - self.left)

    def y(self, value: float) -> float:
        return self.bottom - value / self.scale * (self.bottom - self.top)

    def height(self, value: float) -> float:
        return value / self.scale * (self.bottom - self.top)

    @property
    def width(self) -> float:
        return self.right - self.left


def axes(frame: Frame, yticks: list[int], ylabel: str, label_scale: int) -> list[str]:
    """The frame's border, step ticks below and value ticks left, with their labels."""
    f = frame
    out = [
        f'<rect class="frame" x="{num(f.left)}" y="{num(f.top)}" '
        f'width="{num(f.width)}" height="{num(f.bottom - f.top)}"/>'
    ]
    ticks: list[str] = []
    for step in step_ticks(f.horizon):
        x = num(f.x(step))
        ticks.append(f"M{x} {num(f.bottom)}v5")
        out.append(f'<text class="tx" x="{x}" y="{num(f.bottom + 17)}">{step}</text>')
    for value in yticks:
        y = num(f.y(value))
        ticks.append(f"M{num(f.left)} {y}h-5")
        label = esc(byte_label(value, label_scale))
        out.append(f'<text class="ty" x="{num(f.left - 8)}" y="{y}">{label}</text>')
    out.append(f'<path class="tick" d="{"".join(ticks)}"/>')
    out.append(
        f'<text class="axis" x="{num((f.left + f.right) / 2)}" y="{num(f.bottom + 34)}">step</text>'
    )
    out.append(
        f'<text class="axis" transform="rotate(-90)" x="{num(-(f.top + f.bottom) / 2)}" '
        f'y="14">{esc(ylabel)}</text>'
    )
    return out
