"""The placement engine: place a capture's units one by one from an empty memory.

A strategy's order decides which unit comes next, its fit where the unit
goes among its valid offsets (see ``tilefit.space``). The attempt ends at the
first unit with no valid offset, or when every unit is placed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tilefit.capture import Capture, Interval
from tilefit.constraints import Constraints
from tilefit.occupancy import Occupancy, bucket_width
from tilefit.placement import Placement
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


@dataclass(frozen=True)
class Problem:
    """What every strategy on one capture shares: its units and their fixed constraints."""

    capture: Capture
    units: tuple[Unit, ...]
    constraints: Constraints
    bucket_width: int

    @classmethod
    def of(cls, capture: Capture) -> Problem:
        all_units = units(capture)
        return cls(
            capture=capture,
            units=all_units,
            constraints=Constraints.of(capture, all_units),
            bucket_width=bucket_width(capture.requests, capture.horizon),
        )


def run_strategy(capture: Capture | Problem, strategy: Strategy | str) -> Attempt:
    """Place every unit of the capture with one strategy, from an empty memory.

    >>> attempt = run_strategy(capture, "long-lived/first-fit")  # doctest: +SKIP
    >>> attempt.fits, attempt.peak_address  # doctest: +SKIP
    """
    problem = capture if isinstance(capture, Problem) else Problem.of(capture)
    (chosen,) = as_strategies((strategy,))
    cap = problem.capture
    constraints = problem.constraints
    occupancy = Occupancy(cap.horizon, problem.bucket_width)
    offsets: dict[str, int] = {}
    spans: dict[str, Interval] = {}
    track_spans = bool(constraints.partners)
    choose = chosen.fit.choose
    order = chosen.order.sort(problem.units, cap.horizon)
    failure = None
    add = occupancy.add
    element_span = constraints.element_span
    for count, unit in enumerate(order):
        space = UnitSpace(unit, constraints, occupancy, spans)
        base = choose(space)
        if base is None:
            holes = tuple(sorted(space.holes(), key=lambda h: (h[0] - h[1], h[0])))
            failure = Failure(unit, count, holes)
            break
        for member, offset in zip(unit.members, unit.offsets, strict=True):
            lo = base + offset
            offsets[member.id] = lo
            add(lo, lo + member.size, member.start, member.end)
            if track_spans:
                spans[member.id] = element_span(lo, lo + member.size)
    return Attempt(
        strategy=chosen,
        capture=cap.name,
        offsets={r.id: offsets[r.id] for r in cap.requests if r.id in offsets},
        placed=tuple(u.id for u in order[: failure.placed_before if failure else len(order)]),
        peak_address=occupancy.peak,
        failure=failure,
    )


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
