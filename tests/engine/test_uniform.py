"""The compiled loop places a uniform capture exactly as the one-by-one engine does."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from engine_helpers import captures
from hypothesis import given, settings
from hypothesis import strategies as st

from tilefit.engine.attempt import Prepared, run_strategy
from tilefit.engine.strategy import STRATEGIES, Strategy
from tilefit.engine.uniform import UniformArrays
from tilefit.model.capture import Capture, Memory, Range, Request

FIRST_FITS = [s for s in STRATEGIES if s.fit.name == "first-fit"]


@st.composite
def plain_captures(draw: st.DrawFn, reach: int = 6) -> Capture:
    """Many requests, one allowed interval, no sequences or conflicts; tight enough
    that some strategies fail. Lifetimes last up to ``reach`` steps, or to the end."""
    horizon = draw(st.integers(1, 300))
    requests = []
    for k in range(draw(st.integers(1, 120))):
        start = draw(st.integers(0, horizon - 1))
        end = draw(st.integers(start + 1, min(horizon, start + reach)))
        if draw(st.integers(0, 9)) == 0:
            end = horizon  # now and then a request lives until model completion
            if draw(st.booleans()):
                start = 0  # or throughout, alive whenever any other is
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
@given(plain_captures(), st.sampled_from(STRATEGIES))
def test_the_compiled_loop_places_as_one_by_one(capture: Capture, strategy: Strategy) -> None:
    prepared = Prepared.of(capture, uniform_from=0)  # always by the compiled loop
    assert prepared.uniform is not None
    assert run_strategy(prepared, strategy) == run_strategy(one_by_one(capture), strategy)


@settings(max_examples=40, deadline=None)
@given(plain_captures(reach=120), st.sampled_from(STRATEGIES), st.integers(1, 4))
def test_every_bucket_width_places_alike(capture: Capture, strategy: Strategy, width: int) -> None:
    """At which level a request sits changes nothing: every bucket width (and so every
    split into levels) places alike."""
    prepared = Prepared.of(capture, uniform_from=0)
    uniform = UniformArrays.of(capture, width)
    assert uniform is not None
    wide = replace(prepared, uniform=uniform)
    assert run_strategy(wide, strategy) == run_strategy(one_by_one(capture), strategy)


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


def test_the_time_table_counts_the_slots_of_each_bucket_and_keeps_long_requests_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tilefit.engine import uniform as arrays
    from tilefit.engine.uniform import LONG_BUCKETS

    requests = (Request("a", 1, 0, 3), Request("b", 1, 2, 3), Request("c", 1, 3, 7))
    horizon = 2 * (LONG_BUCKETS + 1)
    long = Request("long", 1, 1, horizon)  # 17 buckets of 2 steps: too long for them
    capture = Capture("t", horizon, Memory(8, (Range(0, 8),)), (*requests, long))
    uniform = UniformArrays.of(capture, width=2)
    assert uniform is not None
    slots = np.diff(uniform.table_start).tolist()
    assert slots[:4] == [1, 3, 1, 1] and sum(slots) == 6  # a: 0-1, b: 1, c: 1-3
    assert uniform.long.tolist() == [False, False, False, True]
    assert uniform.widths.tolist() == [2] and uniform.bases.tolist() == [0, LONG_BUCKETS + 1]
    # More long requests than the list should hold: a second level of buckets takes them.
    monkeypatch.setattr(arrays, "LONG_LIST_MOST", 0)
    uniform = UniformArrays.of(capture, width=2)
    assert uniform is not None
    assert uniform.widths.tolist() == [2, 2 * LONG_BUCKETS]
    assert uniform.bases.tolist() == [0, LONG_BUCKETS + 1, LONG_BUCKETS + 3]
    slots = np.diff(uniform.table_start).tolist()
    assert sum(slots) == 8 and slots[LONG_BUCKETS + 1 :] == [1, 1]  # both of level 1
    assert uniform.first_bucket[3] == LONG_BUCKETS + 1 == uniform.last_bucket[3] - 1
    assert uniform.long.tolist() == [False, False, False, False]


@settings(max_examples=40, deadline=None)
@given(plain_captures(reach=120), st.sampled_from(STRATEGIES), st.integers(1, 4))
def test_a_second_level_of_buckets_places_alike(
    capture: Capture, strategy: Strategy, width: int
) -> None:
    """Long requests under a second level of buckets (the list of long ones keeping only
    those too long for it) place as in the list, as one by one."""
    from tilefit.engine import uniform as arrays

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arrays, "LONG_LIST_MOST", 0)
        uniform = UniformArrays.of(capture, width)
    assert uniform is not None
    wide = replace(Prepared.of(capture, uniform_from=0), uniform=uniform)
    assert run_strategy(wide, strategy) == run_strategy(one_by_one(capture), strategy)


@settings(max_examples=40, deadline=None)
@given(plain_captures(), st.sampled_from(STRATEGIES))
def test_a_union_given_up_places_alike(capture: Capture, strategy: Strategy) -> None:
    """The union of every placed request's addresses (read by a request alive throughout)
    is given up once it outgrows its arrays: the loop then gathers what is placed
    instead, and places alike."""
    from tilefit.engine import uniform

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(uniform, "UNION_WIDTH", 1)  # as wide as the whole requests need only
        prepared = Prepared.of(capture, uniform_from=0)
        assert run_strategy(prepared, strategy) == run_strategy(one_by_one(capture), strategy)


def test_without_the_compiler_the_one_by_one_engine_places(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under ``TILEFIT_NO_JIT`` the loop would run as plain Python, slower than the
    one-by-one engine: that places instead, alike."""
    from tilefit.engine import attempt

    requests = tuple(Request(f"r{k}", 8, k % 50, k % 50 + 3) for k in range(300))
    capture = Capture("c", 60, Memory(1 << 16, (Range(0, 1 << 16),)), requests)
    prepared = Prepared.of(capture, uniform_from=0)
    compiled = run_strategy(prepared, "size/first-fit")
    monkeypatch.setenv("TILEFIT_NO_JIT", "1")

    def refused(*args: object) -> None:
        pytest.fail("the compiled loop ran without the compiler")

    monkeypatch.setattr(attempt, "_run_uniform", refused)
    assert run_strategy(prepared, "size/first-fit") == compiled


@settings(max_examples=40, deadline=None)
@given(plain_captures(), st.sampled_from(STRATEGIES))
def test_calls_of_one_request_each_place_alike(capture: Capture, strategy: Strategy) -> None:
    """Where requests are slow to place the compiled loop is called on fewer of them at a
    time (down to one), so that a deadline is heard sooner: the placement is the same."""
    from tilefit.engine import uniform

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(uniform, "CALL_SECONDS", 0.0)  # every call: one request
        prepared = Prepared.of(capture, uniform_from=0)
        assert run_strategy(prepared, strategy) == run_strategy(one_by_one(capture), strategy)


def test_a_slow_call_makes_the_next_one_shorter_and_a_quick_one_longer() -> None:
    from tilefit.engine.uniform import CALL_SECONDS, CHUNK, _next_span

    assert _next_span(CHUNK, CHUNK, 100 * CALL_SECONDS) == CHUNK // 100
    assert _next_span(CHUNK, CHUNK, 1e6) == 1  # never none
    assert _next_span(10, 10, CALL_SECONDS / 100) == 20  # at most twice as many
    assert _next_span(CHUNK, CHUNK, 0.0) == CHUNK  # never more than CHUNK
