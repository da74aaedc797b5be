"""Time sections: the maximal step intervals in which the set of live blocks does not change."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tilefit.search.kernel.jit import entry
from tilefit.search.kernel.layout import Rows


@dataclass(frozen=True)
class Sections:
    """Section k is the step interval ``[points[k], points[k + 1])``."""

    points: tuple[int, ...]
    spans: tuple[tuple[int, int], ...]  # per lifetime: its sections [first, last + 1)
    members: Rows  # per section: the lifetimes alive in it, ascending

    @property
    def count(self) -> int:
        return max(len(self.points) - 1, 0)

    def alive(self, section: int) -> list[int]:
        """The lifetimes alive in one section, ascending."""
        ptr = self.members.ptr
        return [int(k) for k in self.members.idx[ptr[section] : ptr[section + 1]]]


class TooLarge(Exception):
    """The sections would hold more members than a search may keep in memory."""


def sweep(lifetimes: Sequence[tuple[int, int]], most: int | None = None) -> Sections:
    """Cut time at every start and end; each half-open lifetime covers whole sections.
    The members are filled by a compiled loop: a real program's sections hold tens of
    millions of entries (thousands of buffers live across tens of thousands of sections).
    ``TooLarge`` when they would number more than ``most``, before any is kept."""
    points, first, last, ptr = _rows(lifetimes)
    if most is not None and int(ptr[-1]) > most:
        raise TooLarge(f"{int(ptr[-1]):,} section members, more than {most:,}")
    idx = np.empty(int(ptr[-1]), dtype=np.int64)
    _fill(first, last, ptr, idx)
    spans = tuple(zip(first.tolist(), last.tolist(), strict=True))
    return Sections(tuple(points.tolist()), spans, Rows(ptr, idx))


def member_count(lifetimes: Sequence[tuple[int, int]]) -> int:
    """How many members the sections of these lifetimes hold (what ``sweep`` would keep)."""
    return int(_rows(lifetimes)[3][-1])


def _rows(
    lifetimes: Sequence[tuple[int, int]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The cut points, each lifetime's first and last section (exclusive), and where each
    section's members start (the last entry: how many there are)."""
    ends = np.asarray(lifetimes, dtype=np.int64).reshape(-1, 2)
    points = np.unique(ends)
    first = np.searchsorted(points, ends[:, 0]).astype(np.int64)
    last = np.searchsorted(points, ends[:, 1]).astype(np.int64)
    count = max(len(points) - 1, 0)
    change = np.zeros(count + 1, dtype=np.int64)  # lifetimes starting less those ending
    np.add.at(change, first, 1)
    np.add.at(change, last, -1)
    ptr = np.zeros(count + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(np.cumsum(change)[:count])
    return points, first, last, ptr


@entry
def _fill(first: np.ndarray, last: np.ndarray, ptr: np.ndarray, idx: np.ndarray) -> None:
    """Each lifetime k, ascending, into the rows of its sections [first[k], last[k])."""
    filled = ptr[:-1].copy()
    for k in range(len(first)):
        for s in range(first[k], last[k]):
            idx[filled[s]] = k
            filled[s] += 1
