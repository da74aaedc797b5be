"""Greedy passes in orders drawn from the live profile: route ``reorder``.

Minimising a real program's peak, no one order of the strategies wins everywhere: on
the real traces of ``benchmarks/real_traces.py`` size-descending first-fit is 4.2% above
the live bound on IOPDDL's S_1 where the requests alive at the busiest step, stacked first
and placed best-fit, are 0.26% above; on TinyBERT and BERT-base the requests ranked by
the busiest step they live through (the "breadth" of Pisarchyk and Lee's greedy by
breadth) reach the bound, where size-descending does not. So the least rung (minimising
a uniform capture, ``tilefit.verdicts.searching``) tries a few such orders and then
random mixtures of their keys, both fits each, by the engine's compiled loop (a pass
of tens of thousands of requests in a fraction of a second), until its time is up or a
pass reaches the bound. Each order is a ``lexsort`` over features of the requests:
nothing here knows a trace. The random mixtures are drawn from a fixed seed, so the
passes tried depend on the capture and the time alone.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tilefit.engine.uniform import UniformArrays, lowest_offsets, smallest_holes
from tilefit.model.capture import Capture
from tilefit.model.deadline import Deadline
from tilefit.model.placement import Placement
from tilefit.search.routes import LEAST, Route

if TYPE_CHECKING:
    from tilefit.engine.uniform import Ints


class Reorder(Route):
    """Greedy passes in orders drawn from the live profile, minimising from the lowest
    greedy pass (``reorder``). Not a route of the portfolio: the ladder's least rung runs
    it on a uniform capture (``tilefit.verdicts.searching.least_rung``)."""

    name = "reorder"
    member = LEAST
    rank = 10
    proves, places = False, True
    says = "greedy passes in orders drawn from the live profile"


@dataclass(frozen=True)
class Reordered:
    """The lowest pass found: its placement, its top, and the order that made it."""

    placement: Placement
    top: int
    order: str
    passes: int  # passes run


@dataclass(frozen=True)
class Features:
    """Per request (capture order), what an order may sort by, each "more first"."""

    size: Ints
    length: Ints  # steps alive
    breadth: Ints  # live bytes at the busiest step it lives through
    at_peak: Ints  # 1 when alive at the busiest step of all

    @classmethod
    def of(cls, uniform: UniformArrays) -> Features:
        starts, ends, sizes = uniform.starts, uniform.ends, uniform.sizes
        horizon = int(ends.max())
        change = np.zeros(horizon + 1, np.int64)
        np.add.at(change, starts, sizes)
        np.add.at(change, ends, -sizes)
        live = np.cumsum(change)[:horizon]
        peak = int(live.argmax())
        return cls(
            size=sizes,
            length=ends - starts,
            breadth=_range_max(live, starts, ends),
            at_peak=((starts <= peak) & (ends > peak)).astype(np.int64),
        )

    def keys(self) -> dict[str, Ints]:
        return {
            "size": self.size,
            "length": self.length,
            "breadth": self.breadth,
            "at-peak": self.at_peak,
        }


FIXED_ORDERS: tuple[tuple[str, ...], ...] = (
    ("breadth", "size"),
    ("at-peak", "length", "size"),
    ("length", "size"),
    ("at-peak", "breadth", "size"),
)
"""The orders tried first, each as its keys, most significant first."""


def reorder(
    capture: Capture,
    uniform: UniformArrays,
    deadline: Deadline,
    above: int,
    floor: int,
    seed: int,
    most: int | None = None,
) -> Reordered | None:
    """The lowest pass below ``above`` found by ``deadline`` (None if none is): orders of
    ``FIXED_ORDERS``, then random mixtures of the same keys, each first-fit and best-fit; it
    ends early at a pass whose top is ``floor`` (the lower bound), or after ``most`` passes."""
    features = Features.of(uniform)
    keys = features.keys()
    best: Reordered | None = None
    passes = 0
    for name, order in _orders(keys, random.Random(seed)):
        for fit, place in (("first-fit", lowest_offsets), ("best-fit", smallest_holes)):
            if deadline.passed() or passes == most:
                return best
            offsets, failed_at = place(uniform, order, deadline.passed)
            passes += 1
            if failed_at != -1:
                continue
            top = int((offsets + uniform.sizes).max())
            if top < (above if best is None else best.top):
                ids = [r.id for r in capture.requests]
                placed = Placement(capture.name, dict(zip(ids, offsets.tolist(), strict=True)))
                best = Reordered(placed, top, f"{name}/{fit}", passes)
                if top <= floor:
                    return best
    return best


def _orders(keys: dict[str, Ints], rng: random.Random) -> Iterator[tuple[str, Ints]]:
    """``FIXED_ORDERS``, then random mixtures: a few keys in a random order of significance,
    the first of them coarsened to a random number of levels (so that the next ones
    break its near ties)."""
    for chosen in FIXED_ORDERS:
        yield "+".join(chosen), _lexsort([keys[k] for k in chosen])
    names = sorted(keys)
    while True:
        chosen = tuple(rng.sample(names, rng.randint(2, len(names))))
        levels = rng.choice((4, 16, 64, 256))
        first = _levels(keys[chosen[0]], levels)
        name = f"{chosen[0]}:{levels}+" + "+".join(chosen[1:])
        yield name, _lexsort([first, *(keys[k] for k in chosen[1:])])


def _lexsort(columns: list[Ints]) -> Ints:
    """Capture indices by the columns descending, the first most significant; ties in
    capture order."""
    return np.lexsort(tuple(-c for c in reversed(columns))).astype(np.int64)


def _levels(values: Ints, levels: int) -> Ints:
    """``values`` on a log scale cut into ``levels`` equal steps."""
    logs = np.log2(np.maximum(values, 1).astype(np.float64))
    span = max(float(logs.max() - logs.min()), 1e-9)
    steps: Ints = np.floor((logs - logs.min()) / span * (levels - 1)).astype(np.int64)
    return steps


def _range_max(values: Ints, starts: Ints, ends: Ints) -> Ints:
    """max(values[start:end]) for each half-open range, by a sparse table."""
    table = [values]
    width = 1
    while 2 * width <= len(values):
        previous = table[-1]
        table.append(np.maximum(previous[:-width], previous[width:]))
        width *= 2
    lengths = ends - starts
    level = np.floor(np.log2(lengths)).astype(np.int64)
    out = np.empty(len(starts), np.int64)
    for k in np.unique(level):
        rows = level == k
        row = table[int(k)]
        out[rows] = np.maximum(row[starts[rows]], row[ends[rows] - (1 << int(k))])
    return out
