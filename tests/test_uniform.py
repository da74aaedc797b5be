"""Placing a uniform capture many units at a time gives the one-by-one attempt exactly."""

from __future__ import annotations

from dataclasses import replace

from engine_helpers import captures
from hypothesis import given, settings
from hypothesis import strategies as st

from tilefit.engine.attempt import Prepared, run_strategy
from tilefit.engine.strategy import STRATEGIES, Strategy
from tilefit.engine.uniform import UniformArrays
from tilefit.model.capture import Capture, Memory, Range, Request

FIRST_FITS = [s for s in STRATEGIES if s.fit.name == "first-fit"]


@st.composite
def plain_captures(draw: st.DrawFn) -> Capture:
    """Many requests, one allowed interval, no sequences or conflicts; tight enough
    that some strategies fail."""
    horizon = draw(st.integers(1, 300))
    requests = []
    for k in range(draw(st.integers(1, 120))):
        start = draw(st.integers(0, horizon - 1))
        end = draw(st.integers(start + 1, min(horizon, start + 6)))
        if draw(st.integers(0, 9)) == 0:
            end = horizon  # now and then a request lives until model completion
        requests.append(
            Request(
                f"r{k}",
                draw(st.integers(1, 24)),
                start,
                end,
                alignment=draw(st.sampled_from((1, 1, 2, 8, 16))),
                cls=draw(st.sampled_from(("default", "scratch"))),
            )
        )
    low = draw(st.integers(0, 40))
    high = low + draw(st.integers(24, 400))
    memory = Memory(high + draw(st.integers(0, 9)), (Range(low, high),))
    return Capture("uniform", horizon, memory, tuple(requests))


def one_by_one(capture: Capture) -> Prepared:
    return replace(Prepared.of(capture), uniform=None)


@settings(max_examples=150, deadline=None)
@given(plain_captures(), st.sampled_from(FIRST_FITS))
def test_many_at_a_time_equals_one_by_one(capture: Capture, strategy: Strategy) -> None:
    prepared = Prepared.of(capture, uniform_from=0, run_floor=0)  # always in bulk
    assert prepared.uniform is not None
    assert run_strategy(prepared, strategy) == run_strategy(one_by_one(capture), strategy)


def test_the_bulk_placement_stands_aside_where_its_runs_are_short() -> None:
    """Runs of one or two units (lifetimes overlapping in the order, or a buffer alive
    throughout, which touches every bucket): the one-by-one loop is far quicker there."""
    from tilefit.engine.attempt import RUN_FLOOR, _run_uniform

    chain = tuple(Request(f"r{k}", 8, k, k + 2) for k in range(400))  # overlapping in order
    scattered = tuple(Request(f"r{k}", 8, (k * 37) % 400, (k * 37) % 400 + 1) for k in range(400))
    memory = Memory(1 << 16, (Range(0, 1 << 16),))
    (strategy,) = [s for s in FIRST_FITS if s.order.name == "size"]
    for requests, bulk in ((chain, False), (scattered, True)):
        prepared = Prepared.of(Capture("c", 401, memory, requests), uniform_from=0)
        assert prepared.run_floor == RUN_FLOOR and prepared.uniform is not None
        found = _run_uniform(prepared, prepared.uniform, strategy)
        assert (found is not None) == bulk
        assert run_strategy(prepared, strategy) == run_strategy(
            one_by_one(prepared.capture), strategy
        )
    alive = (*scattered, Request("all", 8, 0, 401))  # one buffer alive throughout
    prepared = Prepared.of(Capture("c", 401, memory, alive), uniform_from=0)
    assert prepared.whole_horizon and _run_uniform(prepared, prepared.uniform, strategy) is None


@settings(max_examples=100, deadline=None)
@given(captures())
def test_only_plain_captures_take_the_array_path(capture: Capture) -> None:
    prepared = Prepared.of(capture, uniform_from=0)
    allowed = {capture.memory.allowed(r.cls, r.interleaved) for r in capture.requests}
    uniform = not capture.sequences and not capture.conflicts and len(allowed) == 1
    uniform = uniform and len(next(iter(allowed))) == 1
    assert (prepared.uniform is not None) == uniform
    # that the array path places as one by one does is the test above, on plain captures


def test_small_captures_stay_one_by_one_unless_asked() -> None:
    capture = Capture("c", 4, Memory(64, (Range(0, 64),)), (Request("a", 8, 0, 4),))
    assert Prepared.of(capture).uniform is None
    assert Prepared.of(capture, uniform_from=1).uniform is not None


def test_the_time_table_lists_each_request_under_every_bucket_it_touches() -> None:
    requests = (Request("a", 1, 0, 3), Request("b", 1, 2, 3), Request("c", 1, 3, 7))
    capture = Capture("t", 8, Memory(8, (Range(0, 8),)), requests)
    uniform = UniformArrays.of(capture, width=2)
    assert uniform is not None
    requests_of = uniform.entry_request.tolist()
    buckets = [
        sorted(requests_of[uniform.table_start[b] : uniform.table_start[b + 1]])
        for b in range(len(uniform.table_start) - 1)
    ]
    assert buckets == [[0], [0, 1, 2], [2], [2]]
    assert uniform.entry_bucket.tolist() == [0, 1, 1, 1, 2, 3]
