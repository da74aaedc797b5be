"""Bytes live over the steps: one sweep over where spans start and end.

A span is ``(start, end, size)``: a request's lifetime and bytes, a block's
piece, whatever holds bytes from one step until before another. The live
storage lower bound is the peak of this sweep; ``tilefit.bounds.columns`` keeps
the vectorised table of it per allowed set.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tilefit.model.capture import Request


def live_steps(spans: Iterable[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """The sweep over spans ``(start, end, size)``: at every step where one starts or ends,
    in order, ``(step, bytes live from that step until the next)``."""
    delta: dict[int, int] = {}
    for start, end, size in spans:
        delta[start] = delta.get(start, 0) + size
        delta[end] = delta.get(end, 0) - size
    live = 0
    out: list[tuple[int, int]] = []
    for step in sorted(delta):
        live += delta[step]
        out.append((step, live))
    return out


def live_peak(spans: Iterable[tuple[int, int, int]]) -> tuple[int, int]:
    """The most bytes live at one step (the live storage lower bound) and the first step
    where they are; ``(0, 0)`` when nothing is ever live."""
    best, best_step = 0, 0
    for step, live in live_steps(spans):
        if live > best:
            best, best_step = live, step
    return best, best_step


def request_spans(requests: Iterable[Request]) -> Iterator[tuple[int, int, int]]:
    """``(start, end, size)`` of each request, for ``live_steps`` and ``live_peak``."""
    return ((r.start, r.end, r.size) for r in requests)
