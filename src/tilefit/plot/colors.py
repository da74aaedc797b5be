"""One colour per request class, the same in every picture and report."""

from __future__ import annotations

from collections.abc import Iterable

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
    "fits": "#2ca02c",
    "fragmentation": "#e08214",
    "capacity": "#d62728",
    "infeasible": "#d62728",
}
VERDICT_OTHER = "#555555"
OVERLOAD = "#a11b1c"  # overloaded windows: darker than the failed unit's red, and hatched


def class_colors(classes: Iterable[str]) -> dict[str, str]:
    """A colour for each class: known names fixed, others in order of appearance."""
    colors: dict[str, str] = {}
    spare = iter(_OTHERS)
    for cls in classes:
        if cls in colors:
            continue
        colors[cls] = _KNOWN.get(cls) or next(spare, None) or _OTHERS[len(colors) % len(_OTHERS)]
    return colors
