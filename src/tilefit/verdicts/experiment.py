"""Ordering experiments: every order with every fit on one capture.

With ``split_sequences`` the matrix runs a second time on the capture with
every sequence split into independently placeable members (lifetimes kept,
a sequence's conflict edges given to each member), as the seed investigation
did to ask whether contiguity is what fails.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from tilefit.engine.attempt import Prepared, run_strategy
from tilefit.engine.strategy import STRATEGIES, Strategy, as_strategies
from tilefit.model.capture import Capture
from tilefit.model.units import split_sequences as split_capture


@dataclass(frozen=True, slots=True)
class ExperimentRow:
    strategy: str
    split_sequences: bool
    fits: bool
    failed_id: str | None  # the unit it failed on, when it failed
    peak_address: int  # the highest address used by what it placed (exclusive)
    seconds: float


def experiment(
    capture: Capture,
    split_sequences: bool = False,
    strategies: Iterable[Strategy | str] = STRATEGIES,
) -> tuple[ExperimentRow, ...]:
    """One row per strategy (16 by default); with ``split_sequences``, as many more.

    >>> rows = experiment(capture)  # doctest: +SKIP
    >>> [r.strategy for r in rows if r.fits]  # doctest: +SKIP
    ['long-lived/first-fit']
    """
    chosen = as_strategies(strategies)
    rows = _rows(capture, chosen, False)
    if split_sequences:
        rows += _rows(split_capture(capture), chosen, True)
    return rows


def _rows(
    capture: Capture, strategies: tuple[Strategy, ...], split: bool
) -> tuple[ExperimentRow, ...]:
    prepared = Prepared.of(capture)
    rows = []
    for strategy in strategies:
        began = time.perf_counter()
        attempt = run_strategy(prepared, strategy)
        seconds = time.perf_counter() - began
        failure = attempt.failure
        rows.append(
            ExperimentRow(
                strategy=strategy.name,
                split_sequences=split,
                fits=failure is None,
                failed_id=None if failure is None else failure.unit.id,
                peak_address=attempt.peak_address,
                seconds=seconds,
            )
        )
    return tuple(rows)
