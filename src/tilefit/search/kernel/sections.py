"""Time sections: the maximal step intervals in which the set of live blocks does not change."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Sections:
    """Section k is the step interval ``[points[k], points[k + 1])``."""

    points: tuple[int, ...]
    spans: tuple[tuple[int, int], ...]  # per lifetime: its sections [first, last + 1)
    members: tuple[tuple[int, ...], ...]  # per section: the lifetimes alive in it

    @property
    def count(self) -> int:
        return max(len(self.points) - 1, 0)


def sweep(lifetimes: Sequence[tuple[int, int]]) -> Sections:
    """Cut time at every start and end; each half-open lifetime covers whole sections."""
    points = tuple(sorted({t for life in lifetimes for t in life}))
    spans = tuple((bisect_left(points, a), bisect_left(points, b)) for a, b in lifetimes)
    members: list[list[int]] = [[] for _ in range(max(len(points) - 1, 0))]
    for k, (first, last) in enumerate(spans):
        for s in range(first, last):
            members[s].append(k)
    return Sections(points, spans, tuple(tuple(m) for m in members))
