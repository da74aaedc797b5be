"""The pieces bound: only the stretches of memory big enough for a request can hold it.

A request lies wholly inside one maximal interval of its allowed set (spec:
it may span adjacent ranges, and ``Memory.allowed`` joins those). An interval
too short for it, once its start is rounded up to the request's alignment, is
storage the request can never use: a 12 KiB scratch-only host aperture holds
no 18 KiB staging buffer. The support-aware bound of the spec counts such
storage; this one drops it from each request's allowed set and asks the same
question (at every step, every union of the sets left, demand against bytes).
A shortfall proves that no placement exists. It is not a "must leave" figure:
shrinking a request changes which stretches can hold it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tilefit.bounds.columns import UnionTable, chunk_rows, union_table
from tilefit.model.capture import Capture, Interval, Memory, Request, align_up


@dataclass(frozen=True, slots=True)
class PiecesShort:
    """A step where the requests need more than the stretches that can hold them."""

    step: int
    demand: int  # bytes live at the step whose usable stretches lie inside the union
    usable: int  # bytes in the union
    union: tuple[Interval, ...]
    requests: tuple[str, ...]  # those counted in the demand, largest first

    @property
    def excess(self) -> int:
        return self.demand - self.usable


def usable(memory: Memory, r: Request) -> tuple[Interval, ...]:
    """The intervals of the request's allowed set that can hold it, aligned."""
    return _usable(memory.allowed(r.cls, r.interleaved), r)


def _usable(allowed: tuple[Interval, ...], r: Request) -> tuple[Interval, ...]:
    return tuple(
        (start, end) for start, end in allowed if align_up(start, 0, r.alignment) + r.size <= end
    )


def pieces_short(capture: Capture, allowed_table: UnionTable | None = None) -> PiecesShort | None:
    """The worst step and union where demand exceeds the usable stretches, if any.
    ``allowed_table``: the capture's table over allowed sets (``union_table(capture)``),
    reused where every request can use every interval of its allowed set."""
    memory = capture.memory
    allowed: dict[tuple[str, bool], tuple[Interval, ...]] = {}  # a few kinds, many requests

    def usable_here(r: Request) -> tuple[Interval, ...]:
        key = (r.cls, r.interleaved)
        if key not in allowed:
            allowed[key] = memory.allowed(*key)
        return _usable(allowed[key], r)

    if allowed_table is not None and all_usable(capture, allowed_table):
        table = allowed_table  # the same sets, so the same table
    else:
        table = union_table(capture, usable_here)
    short = [u for u in range(len(table.unions)) if table.peaks[u] > table.capacity[u]]
    if not short:
        return None
    capacity = np.array(table.capacity, dtype=table.live.dtype)[short]
    best: tuple[int, int, int] | None = None  # (excess, row, union)
    chunk = chunk_rows(len(short))
    for lo in range(0, len(table.live), chunk):
        excess = table.live[lo : lo + chunk] @ table.inside[:, short] - capacity
        at = np.unravel_index(int(np.argmax(excess)), excess.shape)
        row, col = int(at[0]), int(at[1])
        found = (int(excess[row, col]), lo + row, short[col])
        if best is None or found[0] > best[0]:
            best = found
    assert best is not None
    _, row, union = best
    step = table.steps[row]
    spans = table.spans(union)
    counted = sorted(
        (r for r in capture.requests if r.start <= step < r.end and _within(usable_here(r), spans)),
        key=lambda r: -r.size,
    )
    return PiecesShort(
        step=step,
        demand=sum(r.size for r in counted),
        usable=table.capacity[union],
        union=spans,
        requests=tuple(r.id for r in counted),
    )


def all_usable(capture: Capture, table: UnionTable) -> bool:
    """Whether every request fits every interval of its allowed set, however aligned: the
    largest size plus alignment less one is at most the shortest interval of every allowed
    set of the kinds present (``table.group``). Then the usable sets are the allowed sets."""
    memory = capture.memory
    shortest = min(
        (end - start for key in table.group for start, end in memory.allowed(*key)), default=0
    )
    most = max((r.size + r.alignment - 1 for r in capture.requests), default=0)
    return most <= shortest


def _within(inner: tuple[Interval, ...], outer: tuple[Interval, ...]) -> bool:
    return all(any(s <= a and b <= e for s, e in outer) for a, b in inner)
