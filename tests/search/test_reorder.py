"""Route ``reorder``: greedy passes in orders drawn from the live profile, and the least
rung that runs them when minimising."""

from __future__ import annotations

import numpy as np
import pytest

from tilefit.bounds.live import live_peak, request_spans
from tilefit.engine.attempt import run_strategy
from tilefit.engine.uniform import UniformArrays
from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.model.deadline import Deadline
from tilefit.model.placement import placement_top
from tilefit.search.local.reorder import Features, Reorder, reorder
from tilefit.verdicts.check import check

# Size-descending first-fit and best-fit both end at 11; the live peak is 10, and the
# requests ranked by the busiest step they live through reach it.
LIVES = ((2, 4, 7), (3, 6, 7), (4, 7, 8), (1, 3, 8), (3, 2, 6), (2, 2, 5), (1, 0, 4), (4, 5, 8))


def _capture() -> Capture:
    requests = tuple(Request(f"r{k}", s, a, b) for k, (s, a, b) in enumerate(LIVES))
    return Capture("lives", 8, Memory(1000, (Range(0, 1000),)), requests)


def _uniform(capture: Capture) -> UniformArrays:
    uniform = UniformArrays.of(capture, 1)
    assert uniform is not None
    return uniform


def _copies(copies: int) -> Capture:
    """Copies of the small capture one after another in time."""
    requests = tuple(
        Request(f"r{c}_{k}", s, 8 * c + a, 8 * c + b)
        for c in range(copies)
        for k, (s, a, b) in enumerate(LIVES)
    )
    return Capture("copies", 8 * copies, Memory(1000, (Range(0, 1000),)), requests)


def test_the_features_read_the_live_profile() -> None:
    features = Features.of(_uniform(_capture()))
    # live bytes per step: 1 1 6 7 8 10 10 9; the busiest step is 5 (the first of two)
    assert features.breadth.tolist() == [10, 10, 9, 10, 10, 8, 7, 10]
    assert features.at_peak.tolist() == [1, 0, 0, 1, 1, 0, 0, 1]
    assert features.length.tolist() == [3, 1, 1, 5, 4, 3, 4, 3]


def test_a_pass_in_another_order_reaches_the_bound_where_size_order_does_not() -> None:
    capture = _capture()
    lower = live_peak(request_spans(capture.requests))[0]
    greedy = min(
        run_strategy(capture, f"size/{fit}").peak_address for fit in ("first-fit", "best-fit")
    )
    assert (lower, greedy) == (10, 11)
    found = reorder(capture, _uniform(capture), Deadline.start(60), greedy, lower, seed=1)
    assert found is not None and found.top == lower
    assert found.order == "breadth+size/first-fit" and found.passes == 1
    assert check(capture, found.placement).valid
    assert placement_top(capture, found.placement.offsets) == lower


def test_only_a_pass_below_the_given_top_counts_and_none_runs_past_the_time() -> None:
    capture = _capture()
    assert reorder(capture, _uniform(capture), Deadline.start(60), 10, 0, 1, most=40) is None
    assert reorder(capture, _uniform(capture), Deadline.start(0.0), 11, 10, seed=1) is None


def test_the_same_capture_and_passes_give_the_same_orders() -> None:
    from tilefit.search.local.reorder import _orders

    keys = Features.of(_uniform(_capture())).keys()
    import random

    first = [
        (name, order.tolist())
        for _, (name, order) in zip(range(12), _orders(keys, random.Random(3)), strict=False)
    ]
    again = [
        (name, order.tolist())
        for _, (name, order) in zip(range(12), _orders(keys, random.Random(3)), strict=False)
    ]
    assert first == again
    assert all(sorted(order) == list(range(len(LIVES))) for _, order in first)


def test_minimising_a_large_uniform_capture_starts_from_the_lowest_pass() -> None:
    """Many copies of the small capture one after another in time: every pass of the
    strategies ends above the live peak, and the least rung reaches it, proven."""
    import tilefit

    capture = _copies(300)  # 2,400 requests: the engine's compiled loop places them
    answer = tilefit.solve(capture, time_limit=60, minimize=True)
    assert answer.least is not None and answer.least.optimal and answer.least.best_top == 10
    assert answer.placement is not None and check(capture, answer.placement).valid
    assert answer.route in ("reorder", "exact")
    assert np.all(np.asarray(list(answer.placement.offsets.values())) >= 0)


def test_a_capture_too_large_for_the_exact_search_still_gets_the_reordered_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A million buffers: the probes' sections would not fit in memory. The least rung
    skips them (it used to build the whole model first, then give up) and still runs
    the passes in other orders, which reach the bound here."""
    from dataclasses import replace

    import tilefit
    from tilefit.search.exact import minimize
    from tilefit.search.params import DEFAULT

    def no_probe(*args: object, **kwargs: object) -> None:
        raise AssertionError("probed a capture too large for the exact search")

    monkeypatch.setattr(minimize, "minimize", no_probe)
    capture = _copies(300)
    few = replace(DEFAULT, exact=replace(DEFAULT.exact, members_most=100))
    answer = tilefit.solve(capture, time_limit=60, minimize=True, params=few)
    assert answer.least is not None and answer.least.optimal and answer.least.best_top == 10
    assert answer.route == Reorder.name
    assert answer.placement is not None and check(capture, answer.placement).valid
