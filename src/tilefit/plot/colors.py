"""One colour per request class, the same in every picture and report."""

from __future__ import annotations

from collections.abc import Iterable

from tilefit.verdicts.verdict import Verdict

# The classes the format names keep their colour from tile to tile.
_KNOWN = {
    "resident": "#4e79a7",
    "output": "#f28e2b",
    "activation": "#59a14f",
    "scratch": "#b07aa1",
    "default": "#9c9c9c",
}
_OTHERS = ("#76b7b2", "#edc948", "#ff9da7", "#9c755f", "#bab0ac", "#86bcb6", "#d4a6c8")

FAILED = "#d62728"  # the unit that did not fit
HOLE = "#ffd92f"  # free space over the failed unit's lifetime: yellow, unlike any class
UNAVAILABLE = "#d0d0d0"  # address space outside every range
PEAK = "#d62728"
VERDICT = {  # as on the report's verdict badge
    Verdict.FITS: "#2ca02c",
    Verdict.FRAGMENTATION: "#e08214",
    Verdict.CAPACITY: "#d62728",
    Verdict.INFEASIBLE: "#d62728",
}
VERDICT_OTHER = "#555555"
OVERLOAD = "#a11b1c"  # overloaded windows: darker than the failed unit's red, and hatched
DARK_TEXT = "#000000"
LIGHT_TEXT = "#ffffff"
MIN_CONTRAST = 4.5  # WCAG's least contrast for text of ordinary size


def class_colors(classes: Iterable[str]) -> dict[str, str]:
    """A colour for each class: known names fixed, others in order of appearance."""
    colors: dict[str, str] = {}
    spare = iter(_OTHERS)
    for cls in classes:
        if cls in colors:
            continue
        colors[cls] = _KNOWN.get(cls) or next(spare, None) or _OTHERS[len(colors) % len(_OTHERS)]
    return colors


def luminance(color: str) -> float:
    """The relative luminance of ``#rrggbb``, from 0 (black) to 1 (white), as WCAG defines it."""
    channels = [int(color[k : k + 2], 16) / 255 for k in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two colours, from 1 (the same) to 21 (black on white)."""
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def label_color(fill: str) -> str:
    """Text on ``fill``: light on dark and mid fills, wherever it reaches MIN_CONTRAST; dark
    otherwise (then black's contrast is above 4.6, so every fill gets at least MIN_CONTRAST)."""
    return LIGHT_TEXT if contrast(fill, LIGHT_TEXT) >= MIN_CONTRAST else DARK_TEXT
