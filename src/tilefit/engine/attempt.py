"""The placement engine: place a capture's units one by one from an empty memory.

A strategy's order decides which unit comes next, its fit where the unit
goes among its valid offsets (see ``tilefit.engine.space``). The attempt ends at the
first unit with no valid offset, or when every unit is placed. A large uniform
capture (one allowed interval, no sequences, no conflicts: every importer's) is
placed by a compiled loop instead, with the same result (see
``tilefit.engine.uniform``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from tilefit.engine.constraints import Constraints, outside
from tilefit.engine.jit import jit_disabled
from tilefit.engine.occupancy import Occupancy, bucket_width
from tilefit.engine.space import UnitSpace
from tilefit.engine.strategy import Placer, Replaying, Strategy, as_placers, as_strategies
from tilefit.engine.uniform import CUT, UniformArrays
from tilefit.model.capture import Capture, Interval
from tilefit.model.collector import collector_paused
from tilefit.model.intervals import free
from tilefit.model.placement import Placement
from tilefit.model.units import Unit, request_unit, units

if TYPE_CHECKING:
    from tilefit.engine.uniform import Ints


@dataclass(frozen=True)
class Failure:
    """The unit a strategy could not place, and the free space it met."""

    unit: Unit
    placed_before: int  # units placed before it
    holes: tuple[Interval, ...]  # its holes, largest first (ties: lower address)
    # set where a production allocator replayed whole placed every unit but its placement
    # breaks a rule of the capture (the referee's first violation; ``unit`` is named there)
    broken: str | None = None


@dataclass(frozen=True)
class Attempt:
    """One strategy's run from an empty memory (or a production allocator's, replayed)."""

    strategy: Placer
    capture: str  # the capture's name
    offsets: Mapping[str, int]  # every request placed, in capture order
    placed: tuple[str, ...]  # ids of the units placed, in placement order
    peak_address: int  # the highest address occupied (exclusive), 0 when none
    failure: Failure | None
    cut: bool = False  # stopped before every unit was tried (its deadline): no answer

    @property
    def fits(self) -> bool:
        return self.failure is None and not self.cut

    @property
    def placement(self) -> Placement | None:
        return Placement(self.capture, self.offsets) if self.fits else None


UNIFORM_FROM = 2_000
"""Units from which a uniform capture is placed by the compiled loop (see
``tilefit.engine.uniform``); below, loading numba costs more than the loop saves."""

SEARCHING_FROM = 500
"""The same where the command will likely load numba anyway (``solve --minimize`` searches
unless a greedy pass reaches the bound): loading numba and the loop takes about 1.3 s, the
16 passes over IREE's 316-buffer MobileBERT trace one by one a fraction of that (the
whole ``solve --minimize`` 0.4 s against 1.7 s), over 1,042 buffers (resnet50) more."""


@dataclass(frozen=True)
class Prepared:
    """What every strategy on one capture shares: its units and their fixed constraints.

    The units and the constraints are built when first asked for: a uniform capture's
    passes in the compiled loop read its arrays instead (a million ``Unit`` objects are
    3 s and 250 MB), and only an order without exact columns, a failure's report or
    another stage asks for them."""

    capture: Capture
    bucket_width: int
    whole_horizon: bool  # whether some request lives over the whole horizon
    uniform: UniformArrays | None  # for a uniform capture of at least uniform_from units

    @classmethod
    def of(cls, capture: Capture, uniform_from: int = UNIFORM_FROM) -> Prepared:
        with collector_paused():
            width = bucket_width(capture.requests, capture.horizon)
            horizon = capture.horizon
            # Without sequences every request is a unit; with them the loop is not used.
            count = len(capture.requests) if not capture.sequences else 0
            return cls(
                capture=capture,
                bucket_width=width,
                whole_horizon=any(r.start == 0 and r.end == horizon for r in capture.requests),
                # The compiled loop knows linear lifetimes only.
                uniform=UniformArrays.of(capture, width)
                if count >= uniform_from and not capture.wraps
                else None,
            )

    @cached_property
    def units(self) -> tuple[Unit, ...]:
        with collector_paused():
            return units(self.capture)

    @cached_property
    def constraints(self) -> Constraints:
        with collector_paused():
            return Constraints.of(self.capture, self.units)


def prepare(capture: Capture | Prepared) -> Prepared:
    """The capture prepared for strategies (a ``Prepared`` is returned as it is)."""
    return capture if isinstance(capture, Prepared) else Prepared.of(capture)


def run_strategy(
    capture: Capture | Prepared,
    strategy: Strategy | str,
    stop: Callable[[], bool] | None = None,
) -> Attempt:
    """Place every unit of the capture with one strategy, from an empty memory.

    ``stop`` (a deadline's ``passed``, say) is asked before each unit (a clock reading:
    well under a microsecond, where one unit can take milliseconds on a large capture):
    once it answers True the pass ends there, ``cut``, neither fitting nor failing.

    >>> attempt = run_strategy(capture, "long-lived/first-fit")  # doctest: +SKIP
    >>> attempt.fits, attempt.peak_address  # doctest: +SKIP
    """
    prepared = prepare(capture)
    (chosen,) = as_strategies((strategy,))
    with collector_paused():
        # In plain Python the loop is slower than one by one.
        if prepared.uniform is not None and chosen.fit.uniform is not None and not jit_disabled():
            return _run_uniform(prepared, prepared.uniform, chosen, stop)
        return _run_units(prepared, chosen, stop)


def _run_units(
    prepared: Prepared, strategy: Strategy, stop: Callable[[], bool] | None = None
) -> Attempt:
    """Place units one by one: the fit chooses among each unit's valid offsets."""
    cap = prepared.capture
    constraints = prepared.constraints
    occupancy = Occupancy(cap.horizon, prepared.bucket_width, prepared.whole_horizon)
    offsets: dict[str, int] = {}
    spans: dict[str, Interval] = {}  # placed request id -> the memory elements it touches
    track_spans = bool(constraints.partners)
    order = strategy.order.sort(prepared.units, cap.horizon)
    choose = strategy.fit.choose
    failure = None
    add = occupancy.add
    element_span = constraints.element_span
    cut = False
    for count, unit in enumerate(order):
        if stop is not None and stop():
            cut = True
            placed = count
            break
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
    if not cut:
        placed = failure.placed_before if failure else len(order)
    return Attempt(
        strategy=strategy,
        capture=cap.name,
        offsets={r.id: offsets[r.id] for r in cap.requests if r.id in offsets},
        placed=tuple(u.id for u in order[:placed]),
        peak_address=occupancy.peak,
        failure=failure,
        cut=cut,
    )


def _run_uniform(
    prepared: Prepared,
    uniform: UniformArrays,
    strategy: Strategy,
    stop: Callable[[], bool] | None = None,
) -> Attempt:
    """Place a uniform capture by the compiled loop: the same attempt as one by one."""
    assert strategy.fit.uniform is not None
    cap = prepared.capture
    # One unit per request here, in capture order: numpy sorts their columns where it can.
    indexes = strategy.order.ranked(uniform, cap.horizon)
    if indexes is None:
        indexes = _indexes(strategy.order.sort(prepared.units, cap.horizon))
    offsets, failed_at = strategy.fit.uniform(uniform, indexes, stop)
    if failed_at == CUT:
        placed = int((offsets >= 0).sum())
        kept = {r.id: o for r, o in zip(cap.requests, offsets.tolist(), strict=True) if o >= 0}
        ids = _ids_in_order(cap, indexes[:placed])
        return Attempt(strategy, cap.name, kept, ids, 0, None, True)
    placed = len(cap.requests) if failed_at < 0 else failed_at
    ends = offsets + uniform.sizes
    failure = None
    if failed_at >= 0:
        index = int(indexes[failed_at])
        unit = request_unit(cap.requests[index], index)
        alive = (offsets >= 0) & (uniform.starts < unit.end) & (uniform.ends > unit.start)
        blocks = [*outside(cap.memory, unit.members[0])]
        blocks += zip(offsets[alive].tolist(), ends[alive].tolist(), strict=True)
        blocks.sort()
        failure = Failure(unit, placed, tuple(sorted(free(blocks), key=_largest_first)))
    return Attempt(
        strategy=strategy,
        capture=cap.name,
        offsets={r.id: o for r, o in zip(cap.requests, offsets.tolist(), strict=True) if o >= 0},
        placed=_ids_in_order(cap, indexes[:placed]),
        peak_address=int(ends[offsets >= 0].max(initial=0)),
        failure=failure,
    )


def _ids_in_order(capture: Capture, indexes: Ints) -> tuple[str, ...]:
    """The ids of the requests at ``indexes`` (one unit per request: a unit's id is its
    request's), by lookups in a plain list rather than through a million units."""
    ids = [r.id for r in capture.requests]
    return tuple(map(ids.__getitem__, indexes.tolist()))


def _indexes(order: tuple[Unit, ...]) -> Ints:
    # Without sequences, a unit's index is its request's position in the capture.
    return np.fromiter((u.index for u in order), np.int64, len(order))


def _largest_first(hole: Interval) -> tuple[int, int]:
    return hole[0] - hole[1], hole[0]


def run_until_fits(
    capture: Capture | Prepared,
    strategies: Iterable[Placer | str],
    stop: Callable[[], bool] | None = None,
) -> tuple[Attempt, ...]:
    """Run strategies in turn, each from an empty memory, until one fits (as production does).

    A production allocator named among them (``tilefit.engine.production``) is replayed
    whole from the capture's inputs. The last attempt is the one that fits, or every
    attempt failed, or (``stop``) the one cut short.
    """
    prepared = prepare(capture)
    attempts: list[Attempt] = []
    for strategy in as_placers(strategies):
        if isinstance(strategy, Replaying):
            from tilefit.engine.production import run_allocator

            attempts.append(run_allocator(prepared, strategy))
        else:
            attempts.append(run_strategy(prepared, strategy, stop))
        if attempts[-1].fits or attempts[-1].cut:
            break
    return tuple(attempts)
