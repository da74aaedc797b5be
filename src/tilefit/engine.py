"""The placement engine: place a capture's units one by one from an empty memory.

A strategy's order decides which unit comes next, its fit where the unit
goes among its valid offsets (see ``tilefit.space``). The attempt ends at the
first unit with no valid offset, or when every unit is placed. A large plain
capture under a fit that knows how is placed many units at a time instead,
with the same result (see ``tilefit.plain``).
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from tilefit.capture import Capture, Interval
from tilefit.constraints import Constraints
from tilefit.intervals import free
from tilefit.occupancy import Occupancy, bucket_width
from tilefit.placement import Placement
from tilefit.plain import Ints, PlainArrays
from tilefit.space import UnitSpace
from tilefit.strategy import Strategy, as_strategies
from tilefit.units import Unit, units


@dataclass(frozen=True)
class Failure:
    """The unit a strategy could not place, and the free space it met."""

    unit: Unit
    placed_before: int  # units placed before it
    holes: tuple[Interval, ...]  # its holes, largest first (ties: lower address)


@dataclass(frozen=True)
class Attempt:
    """One strategy's run from an empty memory."""

    strategy: Strategy
    capture: str  # the capture's name
    offsets: Mapping[str, int]  # every request placed, in capture order
    placed: tuple[str, ...]  # ids of the units placed, in placement order
    peak_address: int  # the highest address occupied (exclusive), 0 when none
    failure: Failure | None

    @property
    def fits(self) -> bool:
        return self.failure is None

    @property
    def placement(self) -> Placement | None:
        return Placement(self.capture, self.offsets) if self.failure is None else None


PLAIN_FROM = 5_000
"""Units from which a plain capture is placed many units at a time (see ``tilefit.plain``);
below, the one-by-one loop is quicker."""


@dataclass(frozen=True)
class Problem:
    """What every strategy on one capture shares: its units and their fixed constraints."""

    capture: Capture
    units: tuple[Unit, ...]
    constraints: Constraints
    bucket_width: int
    whole_horizon: bool  # whether some request lives over the whole horizon
    plain: PlainArrays | None  # for a plain capture of at least plain_from units

    @classmethod
    def of(cls, capture: Capture, plain_from: int = PLAIN_FROM) -> Problem:
        with _collector_paused():
            all_units = units(capture)
            width = bucket_width(capture.requests, capture.horizon)
            horizon = capture.horizon
            return cls(
                capture=capture,
                units=all_units,
                constraints=Constraints.of(capture, all_units),
                bucket_width=width,
                whole_horizon=any(r.start == 0 and r.end == horizon for r in capture.requests),
                plain=PlainArrays.of(capture, width) if len(all_units) >= plain_from else None,
            )


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Units, placed intervals and offsets hold no reference cycles, yet creating
    100,000 of them sets off full cyclic collections that rescan every object;
    pause the collector meanwhile."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def run_strategy(capture: Capture | Problem, strategy: Strategy | str) -> Attempt:
    """Place every unit of the capture with one strategy, from an empty memory.

    >>> attempt = run_strategy(capture, "long-lived/first-fit")  # doctest: +SKIP
    >>> attempt.fits, attempt.peak_address  # doctest: +SKIP
    """
    problem = capture if isinstance(capture, Problem) else Problem.of(capture)
    (chosen,) = as_strategies((strategy,))
    with _collector_paused():
        if problem.plain is not None and chosen.fit.plain is not None:
            return _run_plain(problem, problem.plain, chosen)
        return _run_units(problem, chosen)


def _run_units(problem: Problem, strategy: Strategy) -> Attempt:
    """Place units one by one: the fit chooses among each unit's valid offsets."""
    cap = problem.capture
    constraints = problem.constraints
    occupancy = Occupancy(cap.horizon, problem.bucket_width, problem.whole_horizon)
    offsets: dict[str, int] = {}
    spans: dict[str, Interval] = {}  # placed request id -> the memory elements it touches
    track_spans = bool(constraints.partners)
    order = strategy.order.sort(problem.units, cap.horizon)
    choose = strategy.fit.choose
    failure = None
    add = occupancy.add
    element_span = constraints.element_span
    for count, unit in enumerate(order):
        space = UnitSpace(unit, constraints, occupancy, spans)
        base = choose(space)
        if base is None:
            holes = tuple(sorted(space.holes(), key=_largest_first))
            failure = Failure(unit, count, holes)
            break
        for member, offset in zip(unit.members, unit.offsets, strict=True):
            lo = base + offset
            offsets[member.id] = lo
            add(lo, lo + member.size, member.start, member.end)
            if track_spans:
                spans[member.id] = element_span(lo, lo + member.size)
    return Attempt(
        strategy=strategy,
        capture=cap.name,
        offsets={r.id: offsets[r.id] for r in cap.requests if r.id in offsets},
        placed=tuple(u.id for u in order[: failure.placed_before if failure else len(order)]),
        peak_address=occupancy.peak,
        failure=failure,
    )


def _run_plain(problem: Problem, plain: PlainArrays, strategy: Strategy) -> Attempt:
    """Place a plain capture many units at a time: the same attempt as one by one."""
    assert strategy.fit.plain is not None
    cap = problem.capture
    order = strategy.order.sort(problem.units, cap.horizon)
    offsets, failed_at = strategy.fit.plain(plain, _indexes(order))
    placed = len(order) if failed_at < 0 else failed_at
    ends = offsets + plain.sizes
    failure = None
    if failed_at >= 0:
        unit = order[failed_at]
        alive = (offsets >= 0) & (plain.starts < unit.end) & (plain.ends > unit.start)
        blocks = [*problem.constraints.outside[unit.id]]
        blocks += zip(offsets[alive].tolist(), ends[alive].tolist(), strict=True)
        blocks.sort()
        failure = Failure(unit, placed, tuple(sorted(free(blocks), key=_largest_first)))
    return Attempt(
        strategy=strategy,
        capture=cap.name,
        offsets={r.id: o for r, o in zip(cap.requests, offsets.tolist(), strict=True) if o >= 0},
        placed=tuple(u.id for u in order[:placed]),
        peak_address=int(ends[offsets >= 0].max(initial=0)),
        failure=failure,
    )


def _indexes(order: tuple[Unit, ...]) -> Ints:
    # Without sequences, a unit's index is its request's position in the capture.
    return np.fromiter((u.index for u in order), np.int64, len(order))


def _largest_first(hole: Interval) -> tuple[int, int]:
    return hole[0] - hole[1], hole[0]


def run_until_fits(
    capture: Capture | Problem, strategies: Iterable[Strategy | str]
) -> tuple[Attempt, ...]:
    """Run strategies in turn, each from an empty memory, until one fits (as production does).

    The last attempt is the one that fits, or every attempt failed.
    """
    problem = capture if isinstance(capture, Problem) else Problem.of(capture)
    attempts: list[Attempt] = []
    for strategy in as_strategies(strategies):
        attempts.append(run_strategy(problem, strategy))
        if attempts[-1].fits:
            break
    return tuple(attempts)
