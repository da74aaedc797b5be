"""The heaviest set of pairwise-meeting requests: a cyclic capture's clique bound.

Requests whose lifetimes pairwise meet need pairwise disjoint bytes, so their
total size is a lower bound on the storage any placement uses. On a line,
pairwise-meeting intervals share a step (Helly), so this is the busiest step's
load and adds nothing. On a circle it can exceed every step's load: arcs
``{3, 0}``, ``{0, 1}``, ``{1, 2, 3}`` on a circle of 4 steps meet pairwise and
no step holds all three.

The exact maximum (a maximum-weight clique of a circular-arc graph) in
polynomial time, from two observations.

1. In a set K of pairwise-meeting arcs, those without step 0 are intervals
   of the line ``[1, T)`` that meet pairwise, so they share a step q. Hence K
   lies inside the arcs holding step 0 (the *left* ones) plus the arcs
   holding q but not 0 (the *right* ones), and each of those two groups
   meets pairwise within itself. q need only range over the starts of arcs
   without step 0 (the arcs holding q are among those holding the latest
   start at or before it).

2. For one q, a left arc that also holds q meets every right arc. Any other
   left arc is ``[0, a) + [b, T)`` with ``a <= q < b`` (b = T when it does
   not wrap); a right arc ``[c, d)`` has ``c <= q < d``, and the two miss
   each other exactly when ``a <= c`` and ``d <= b``. Choosing left arcs draws
   a staircase ``g(c)``, the largest b among the chosen with ``a <= c``
   (nondecreasing in c); a right arc may join when ``d > g(c)``, and every
   left arc with ``b <= g(a)`` joins at no cost. Conversely any
   nondecreasing g is met or bettered by the staircase of the left arcs it
   admits. So the heaviest clique for q is the best nondecreasing g, found by
   a sweep over c with, per level of g, the best weight so far: ``O(n)``
   levels per step of the sweep, ``O(n^2)`` per q.

``tests/bounds/test_cyclic_bounds.py`` checks it against every subset of small
captures.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tilefit.model.capture import Capture, Request

if TYPE_CHECKING:  # numpy.typing is for the type checker only
    from numpy.typing import NDArray

_INT_LIMIT = 2**62  # sums of sizes below it stay exact in int64


@dataclass(frozen=True, slots=True)
class Meeting:
    """The heaviest set of requests whose lifetimes pairwise meet."""

    weight: int  # their total size
    ids: tuple[str, ...]  # in capture order

    def deficit(self, available: int) -> int:
        return max(0, self.weight - available)


def heaviest_meeting(capture: Capture) -> Meeting:
    """The heaviest set of pairwise-meeting requests (exact, on the circle where
    something wraps; on a line it is a busiest step's requests)."""
    requests = capture.requests
    period = capture.horizon
    left = [r for r in requests if r.start == 0 or r.end <= r.start]
    rest = [r for r in requests if not (r.start == 0 or r.end <= r.start)]
    left_weight = sum(r.size for r in left)
    best: tuple[int, list[Request]] = (left_weight, left)
    # The most promising q first (all the left and right arcs together), until even
    # that weighs no more than the best found.
    for weight, q in sorted(_loads_at_starts(rest), key=lambda wq: (-wq[0], wq[1])):
        if left_weight + weight <= best[0]:
            break
        right = [r for r in rest if r.start <= q < r.end]
        found = _heaviest_at(left, right, q, period)
        if found[0] > best[0]:
            best = found
    chosen = {id(r) for r in best[1]}
    return Meeting(best[0], tuple(r.id for r in requests if id(r) in chosen))


def _heaviest_at(
    left: list[Request], right: list[Request], q: int, period: int
) -> tuple[int, list[Request]]:
    """The heaviest clique of the left arcs (holding step 0) and the right ones (holding
    q, not 0), by the staircase sweep of the module text."""
    always = [x for x in left if _holds(x, q)]
    gapped = [(x.end, x.start if x.start > x.end else period, x) for x in left if not _holds(x, q)]
    levels = sorted({b for _, b, _ in gapped})  # g's values; level 0 is "below every b"
    # Per coordinate of the sweep, the left arcs (joining from their level up) and the
    # right arcs (joining below the level of their end).
    joins: dict[int, tuple[list[tuple[int, Request]], list[tuple[int, Request]]]] = {}
    for a, b, x in gapped:
        joins.setdefault(a, ([], []))[0].append((1 + bisect_left(levels, b), x))
    for y in right:
        joins.setdefault(y.start, ([], []))[1].append((1 + bisect_left(levels, y.end), y))
    total = sum(r.size for r in left) + sum(r.size for r in right)
    dtype: Any = np.int64 if total < _INT_LIMIT else object
    order = sorted(joins)
    # What joining adds at each coordinate, per level of g, as one table.
    adds: NDArray[Any] = np.zeros((len(order), len(levels) + 2), dtype=dtype)
    for k, coordinate in enumerate(order):
        xs, ys = joins[coordinate]
        for level, x in xs:
            adds[k, level] += x.size
        for level, y in ys:
            adds[k, 0] += y.size
            adds[k, level] -= y.size
    adds = np.cumsum(adds[:, :-1], axis=1)
    best: NDArray[Any] = np.zeros(len(levels) + 1, dtype=dtype)  # per level: most so far
    history: list[NDArray[Any]] = []
    for k in range(len(order)):
        best = np.maximum.accumulate(best) + adds[k]  # g may rise here, then who joins
        history.append(best)
    # Walk the sweep back: g's level at each coordinate, and who joins there.
    chosen = list(always)
    level = int(np.argmax(best))
    weight = int(best[level]) + sum(x.size for x in always)
    for k in range(len(order) - 1, -1, -1):
        xs, ys = joins[order[k]]
        chosen += [x for at, x in xs if at <= level]
        chosen += [y for at, y in ys if at > level]
        if k:
            level = int(np.argmax(history[k - 1][: level + 1]))
    return weight, chosen


def _loads_at_starts(arcs: list[Request]) -> list[tuple[int, int]]:
    """``(bytes live, step)`` at each step where one of these linear arcs starts and the
    next step where one starts or ends holds an end: up to there no arc leaves, so the
    arcs live at an earlier start are all live there too."""
    delta: dict[int, int] = {}
    for r in arcs:
        delta[r.start] = delta.get(r.start, 0) + r.size
        delta[r.end] = delta.get(r.end, 0) - r.size
    starts = {r.start for r in arcs}
    ends = {r.end for r in arcs}
    steps = sorted(delta)
    out: list[tuple[int, int]] = []
    live = 0
    for k, step in enumerate(steps):
        live += delta[step]
        # An arc starting here ends later, so a next step exists.
        if step in starts and steps[k + 1] in ends:
            out.append((live, step))
    return out


def _holds(arc: Request, step: int) -> bool:
    if arc.start < arc.end:
        return arc.start <= step < arc.end
    return step >= arc.start or step < arc.end
