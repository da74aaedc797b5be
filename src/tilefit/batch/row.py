"""The result row of one capture: what the batch records as soon as it finishes."""

from __future__ import annotations

from dataclasses import astuple, dataclass, fields


@dataclass(frozen=True, slots=True)
class Row:
    """One capture's outcome. ``error`` is set when it could not be worked out."""

    source: str  # where the capture came from: a file, or BUNDLE:LINE; the key
    name: str  # the capture's name (its source's stem when it could not be read)
    tile: int | None
    mode: str
    verdict: str | None  # diagnose: fits, fragmentation, capacity, ...; other modes: their status
    strategy: str | None  # what fits
    lower_bound: int | None
    available: int | None
    deficit: int | None  # live-storage deficit, 0 when none
    support_deficit: int | None
    windows: int | None  # overloaded windows (runs of steps over what their requests may use)
    must_leave: int | None  # bytes that must leave the worst window, 0 when none
    worst_start: int | None  # the worst window: steps [worst_start, worst_end) ...
    worst_end: int | None
    worst_excess: int | None  # ... and the bytes over at its worst step
    failed_id: str | None  # the unit the last production attempt failed on
    seconds: float
    error: str | None = None

    def values(self) -> tuple[object, ...]:
        return astuple(self)


COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(Row))


def error_row(source: str, name: str, mode: str, error: str, seconds: float = 0.0) -> Row:
    """The row of a capture that could not be worked out: malformed, crashed, too slow."""
    return Row(
        source=source,
        name=name,
        tile=None,
        mode=mode,
        verdict=None,
        strategy=None,
        lower_bound=None,
        available=None,
        deficit=None,
        support_deficit=None,
        windows=None,
        must_leave=None,
        worst_start=None,
        worst_end=None,
        worst_excess=None,
        failed_id=None,
        seconds=seconds,
        error=error,
    )
