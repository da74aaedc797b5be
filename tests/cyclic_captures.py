"""Tiny cyclic captures for property tests: the search's tiny captures, every lifetime
redrawn as an arc on a circle of 4 steps (some wrap, some are held at every step)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import strategies as st
from search_captures import tiny_captures

from tilefit.model.capture import Capture, Request

PERIOD = 4


@st.composite
def arcs(draw: st.DrawFn) -> tuple[int, int]:
    """``(start, end)`` on the circle: ``start > end`` wraps, ``(0, PERIOD)`` is held."""
    start = draw(st.integers(0, PERIOD - 1))
    end = draw(st.integers(1, PERIOD).filter(lambda e: e != start))
    return start, end


@st.composite
def cyclic_captures(draw: st.DrawFn, max_requests: int = 4) -> Capture:
    """A tiny capture of every constraint kind, its lifetimes arcs, at least one wrapping
    (a sequence's members keep one arc where the linear one was rigid)."""
    capture = draw(tiny_captures(max_requests=max_requests))
    lives: dict[tuple[int, int], tuple[int, int]] = {}
    requests: list[Request] = []
    for r in capture.requests:
        key = (r.start, r.end) if r.id in capture.sequence_of else (-1, len(requests))
        if key not in lives:
            lives[key] = draw(arcs())
        start, end = lives[key]
        requests.append(replace(r, start=start, end=end))
    if not any(r.start > r.end for r in requests):
        start, end = draw(arcs().filter(lambda a: a[0] > a[1]))
        requests[0] = replace(requests[0], start=start, end=end)
    return replace(capture, requests=tuple(requests), horizon=PERIOD, period=PERIOD)


def meet_by_steps(a: Request, b: Request) -> bool:
    """Whether two lifetimes share a step, step by step round the circle."""
    return bool(steps_of(a) & steps_of(b))


def steps_of(r: Request) -> set[int]:
    return {t % PERIOD for t in range(r.start, r.end if r.start < r.end else r.end + PERIOD)}


def loop() -> dict[str, Any]:
    """Three arcs that meet pairwise with no step in common, and one held throughout."""
    return {
        "format": "tilefit-capture",
        "version": 1,
        "name": "loop",
        "horizon": 4,
        "period": 4,
        "memory": {"size": 40, "ranges": [{"start": 0, "end": 40}]},
        "requests": [
            {"id": "a", "size": 10, "start": 3, "end": 1},
            {"id": "b", "size": 10, "start": 0, "end": 2},
            {"id": "c", "size": 10, "start": 1, "end": 4},
            {"id": "h", "size": 5, "start": 0, "end": 4},
        ],
    }
