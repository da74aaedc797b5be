"""Axis ticks and their labels, shared by the matplotlib and the SVG drawings."""

from __future__ import annotations

KIB_FROM = 16384  # memories this large are labelled in KiB


def tick_step(span: int, most: int = 12, binary: bool = False) -> int:
    """A step giving at most ``most`` ticks over ``span``: 1-2-5 decimal, or powers of two."""
    step = 1024 if binary else 1
    while span / step > most:
        if binary:
            step *= 2
        else:
            step = step * 5 // 2 if str(step)[0] == "2" else step * 2
    return step


def address_ticks(size: int) -> list[int]:
    """Address ticks from 0 to ``size``: powers of two of KiB for large memories."""
    step = tick_step(size, binary=size >= KIB_FROM)
    return list(range(0, size + 1, step))


def step_ticks(horizon: int) -> list[int]:
    return list(range(0, horizon + 1, tick_step(horizon, most=14)))


def byte_label(value: float, scale: int) -> str:
    """A tick label for ``value`` bytes on an axis reaching ``scale`` bytes."""
    if scale < KIB_FROM:
        return f"{value:,.0f}"
    kib = value / 1024
    return f"{kib:,.0f} KiB" if kib == int(kib) else f"{kib:,.1f} KiB"
