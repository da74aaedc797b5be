"""Route ``sink``: the overhang above a target sunk below it (``tilefit.search.local.overhang``),
what it evicts placed again by CP-SAT around the others held (``tilefit.search.sat.neighbourhood``),
and the least rung that runs it (``tilefit.search.sat.sink``), each against brute force."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import strategies as st
from search_captures import count_answers
from test_reorder import LIVES, _copies

import tilefit
from tilefit.engine.uniform import UniformArrays
from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.model.deadline import Deadline
from tilefit.model.placement import Placement
from tilefit.search.local.overhang import _cheapest, sink
from tilefit.search.params import DEFAULT
from tilefit.search.routes import Routes, switchable
from tilefit.search.sat.neighbourhood import obstacles, replace_free
from tilefit.search.sat.sink import Sink, SinkParams, _clusters, lower
from tilefit.verdicts.check import check

EXAMPLES = 80
FAR = 60.0  # seconds: never reached by these small cases


def _uniform(capture: Capture) -> UniformArrays:
    uniform = UniformArrays.of(capture, 1)
    assert uniform is not None
    return uniform


def _meets(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    """Two rectangles (bytes lo, hi, steps start, end) share a byte at a step."""
    return a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]


@st.composite
def _spans(draw: st.DrawFn) -> tuple[list[int], list[int], list[float], int, int, int, int]:
    count = draw(st.integers(0, 6))
    lows = draw(st.lists(st.integers(0, 30), min_size=count, max_size=count))
    sizes = draw(st.lists(st.integers(1, 8), min_size=count, max_size=count))
    weights = draw(st.lists(st.sampled_from((-1.0, 1.0, 2.0, 5.0)), min_size=count, max_size=count))
    size = draw(st.integers(1, 8))
    alignment = draw(st.sampled_from((1, 2, 4)))
    low = draw(st.integers(0, 6))
    target = draw(st.integers(low, 40))
    return lows, sizes, weights, size, alignment, low, target


def _brute_cheapest(
    lows: list[int], sizes: list[int], weights: list[float], size: int, alignment: int,
    low: int, target: int,
) -> int | None:  # fmt: skip
    best: tuple[float, int] | None = None
    for x in range(low, target - size + 1):
        if x % alignment:
            continue
        met = [
            w for a, s, w in zip(lows, sizes, weights, strict=True) if a < x + size and x < a + s
        ]
        if any(w < 0 for w in met):
            continue
        if best is None or sum(met) < best[0]:
            best = (sum(met), x)
    return None if best is None else best[1]


def test_the_cheapest_offset_is_brute_force_s() -> None:
    def body(lows, sizes, weights, size, alignment, low, target) -> bool:  # type: ignore[no-untyped-def]
        args = (np.array(lows, np.int64), np.array(sizes, np.int64), np.array(weights))
        found = _cheapest(*args, size, alignment, low, target)
        assert found == _brute_cheapest(lows, sizes, weights, size, alignment, low, target)
        return found is not None

    answered, ran = count_answers(_spans(), EXAMPLES, body)
    assert ran == EXAMPLES and answered >= EXAMPLES // 3


@st.composite
def _placed(draw: st.DrawFn) -> tuple[Capture, np.ndarray, int]:
    """A uniform capture, each request at a drawn offset (overlaps allowed: the sink does
    not read them), and a target below the highest."""
    count = draw(st.integers(1, 9))
    requests, offsets = [], []
    for k in range(count):
        start = draw(st.integers(0, 6))
        requests.append(
            Request(f"r{k}", draw(st.integers(1, 5)), start, start + draw(st.integers(1, 4)))
        )
        offsets.append(draw(st.integers(0, 14)))
    capture = Capture("drawn", 10, Memory(64, (Range(0, 64),)), tuple(requests))
    array = np.array(offsets, np.int64)
    top = int((array + _uniform(capture).sizes).max())
    return capture, array, draw(st.integers(max(1, top - 8), top))


def test_sunk_requests_lie_below_the_target_and_evict_exactly_what_they_meet() -> None:
    def body(capture: Capture, offsets: np.ndarray, target: int) -> bool:
        uniform = _uniform(capture)
        sunk = sink(uniform, offsets, target, lambda: False)
        if sunk is None:
            return False
        sizes, starts, ends = uniform.sizes, uniform.starts, uniform.ends
        rect = [
            (int(o), int(o + s), int(a), int(b))
            for o, s, a, b in zip(sunk.offsets, sizes, starts, ends, strict=True)
        ]
        over = set(sunk.overhang.tolist())
        assert over == set(np.flatnonzero(offsets + sizes > target).tolist())
        assert all(sunk.offsets[k] + sizes[k] <= target for k in over)
        assert all(not _meets(rect[i], rect[j]) for i in over for j in over if i < j)
        met = {
            j
            for j in range(len(rect))
            if j not in over and any(_meets(rect[j], rect[k]) for k in over)
        }
        assert set(sunk.evicted.tolist()) == met
        kept = [j for j in range(len(rect)) if j not in over]
        assert all(sunk.offsets[j] == offsets[j] for j in kept)
        return True

    answered, ran = count_answers(_placed(), EXAMPLES, body)
    assert ran == EXAMPLES and answered >= EXAMPLES // 4


def test_nothing_sinks_once_the_time_is_up_or_below_a_request_s_size() -> None:
    capture = Capture(
        "two", 2, Memory(64, (Range(0, 64),)), (Request("a", 4, 0, 2), Request("b", 4, 0, 2))
    )
    uniform, offsets = _uniform(capture), np.array([0, 4], np.int64)
    assert sink(uniform, offsets, 7, lambda: True) is None
    assert sink(uniform, offsets, 3, lambda: False) is None  # a 4-byte request below 3
    moved = sink(uniform, offsets, 4, lambda: False)  # b sinks onto a and evicts it
    assert moved is not None and moved.offsets.tolist() == [0, 0] and moved.evicted.tolist() == [0]


@st.composite
def _held(draw: st.DrawFn) -> tuple[Capture, np.ndarray, np.ndarray, np.ndarray]:
    """A drawn placement, the requests free, and some of the others ignored."""
    capture, offsets, _ = draw(_placed())
    count = len(capture.requests)
    free = sorted(set(draw(st.lists(st.integers(0, count - 1), min_size=1, max_size=count))))
    others = [k for k in range(count) if k not in free]
    ignored = sorted(set(draw(st.lists(st.sampled_from(others), max_size=2)))) if others else []
    return capture, offsets, np.array(free, np.int64), np.array(ignored, np.int64)


def test_the_obstacles_bar_exactly_what_the_held_requests_take() -> None:
    """For every free request and every offset, it meets an obstacle exactly when it meets
    a request held (neither free nor ignored)."""

    def body(capture: Capture, offsets: np.ndarray, free: np.ndarray, ignored: np.ndarray) -> bool:
        uniform = _uniform(capture)
        sizes, starts, ends = uniform.sizes, uniform.starts, uniform.ends
        found = obstacles(uniform, offsets, free, ignored)
        loose = set(free.tolist()) | set(ignored.tolist())
        held = [j for j in range(len(sizes)) if j not in loose]
        for k in free.tolist():
            for x in range(-6, 24):
                me = (x, x + int(sizes[k]), int(starts[k]), int(ends[k]))
                by_held = any(
                    _meets(
                        me,
                        (int(offsets[j]), int(offsets[j] + sizes[j]), int(starts[j]), int(ends[j])),
                    )
                    for j in held
                )
                assert by_held == any(_meets(me, o) for o in found), (k, x, found)
        return bool(found)

    answered, ran = count_answers(_held(), EXAMPLES, body)
    assert ran == EXAMPLES and answered > 0


def _lives() -> Capture:
    requests = tuple(Request(f"r{k}", s, a, b) for k, (s, a, b) in enumerate(LIVES))
    return Capture("lives", 8, Memory(1000, (Range(0, 1000),)), requests)


def _first_fit(capture: Capture) -> np.ndarray:
    from tilefit.engine.attempt import run_strategy

    attempt = run_strategy(capture, "size/first-fit")
    return np.array([attempt.offsets[r.id] for r in capture.requests], np.int64)


def test_cp_sat_places_the_free_requests_around_the_held_ones() -> None:
    capture = _lives()
    uniform, offsets = _uniform(capture), _first_fit(capture)
    assert int((offsets + uniform.sizes).max()) == 11  # the live peak is 10
    everything = np.arange(len(LIVES), dtype=np.int64)
    placed = replace_free(uniform, offsets, everything, 10, Deadline.start(FAR), 1)
    assert placed is not None
    at_ten = replace(capture, memory=Memory(10, (Range(0, 10),)))
    assert check(
        at_ten,
        Placement(
            capture.name, {r.id: int(o) for r, o in zip(capture.requests, placed, strict=True)}
        ),
    ).valid
    with pytest.raises(ValueError, match="held where it is reaches above the top 9"):
        replace_free(uniform, offsets, np.array([5, 6], np.int64), 9, Deadline.start(FAR), 1)
    # A 4-byte request beside one held at [0, 4) has no room below 6: none is found.
    two = Capture(
        "two", 2, Memory(64, (Range(0, 64),)), (Request("a", 4, 0, 2), Request("b", 4, 0, 2))
    )
    got = replace_free(
        _uniform(two),
        np.array([0, 4], np.int64),
        np.array([1], np.int64),
        6,
        Deadline.start(FAR),
        1,
    )
    assert got is None


def test_clusters_keep_apart_what_lives_far_apart() -> None:
    far = tuple(
        Request(f"r{k}", 1, a, b) for k, (a, b) in enumerate(((0, 2), (1, 3), (20, 22), (21, 40)))
    )
    uniform = _uniform(Capture("far", 40, Memory(8, (Range(0, 8),)), far))
    groups = _clusters(uniform, np.array([3, 0, 2, 1], np.int64))
    assert [g.tolist() for g in groups] == [[0, 1], [2, 3]]
    assert _clusters(uniform, np.array([], np.int64)) == []


def test_lower_reaches_the_live_peak_from_first_fit_s_pass() -> None:
    capture = _lives()
    uniform, offsets = _uniform(capture), _first_fit(capture)
    start = Placement(
        capture.name, {r.id: int(o) for r, o in zip(capture.requests, offsets, strict=True)}
    )
    found = lower(capture, uniform, start, 10, Deadline.start(FAR), SinkParams(workers=1))
    assert found is not None and found.top == 10 and found.tries == 1
    at_ten = replace(capture, memory=Memory(10, (Range(0, 10),)))
    assert check(at_ten, found.placement).valid
    assert lower(capture, uniform, start, 10, Deadline.start(0.0), SinkParams()) is None


def test_the_least_rung_lowers_its_pass_by_the_route_and_not_without_it() -> None:
    """Copies of the small capture in time, the probes and the reordered passes off: the
    greedy passes end at 11, the route reaches the live peak, 10, proven; off, it stays."""
    capture = _copies(300)  # 2,400 requests: uniform, minimised by the least rung
    few = replace(DEFAULT, exact=replace(DEFAULT.exact, members_most=100))
    with_it = replace(few, routes=Routes.without(["reorder"]))
    answer = tilefit.solve(capture, time_limit=FAR, minimize=True, params=with_it)
    assert answer.least is not None and answer.least.optimal and answer.least.best_top == 10
    assert answer.route == Sink.name and answer.strategy == "search:sink"
    assert answer.placement is not None and check(capture, answer.placement).valid
    without = replace(few, routes=Routes.without(["reorder", "sink"]))
    answer = tilefit.solve(capture, time_limit=FAR, minimize=True, params=without)
    assert answer.least is not None and answer.least.best_top == 11


def test_its_parameters_are_checked() -> None:
    with pytest.raises(ValueError, match="neighbourhoods"):
        SinkParams(neighbourhoods=(0,))
    with pytest.raises(ValueError, match="share"):
        SinkParams(share=1.5)


def _a_byte_above(monkeypatch: pytest.MonkeyPatch) -> tuple[Capture, object]:
    """The copies at a memory of their live peak, 10, and the closest placement made the
    first-fit pass by size, a byte above it."""
    import tilefit.search.closest as closest_module
    from tilefit.engine.attempt import run_strategy

    copies = _copies(300)
    capture = replace(copies, memory=Memory(10, (Range(0, 10),)))
    wide = replace(copies, memory=Memory(11, (Range(0, 11),)))
    passed = run_strategy(wide, "size/first-fit")
    assert passed.failure is None and passed.peak_address == 11
    placement = Placement(capture.name, dict(passed.offsets))
    made = closest_module.Closest(1, 11, "size/first-fit", placement)
    monkeypatch.setattr(closest_module, "closest", lambda *args, **kwargs: made)
    return capture, made


def test_before_the_portfolio_the_route_places_what_lies_above_the_top(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import tilefit.verdicts.ladder as ladder

    capture, _ = _a_byte_above(monkeypatch)

    def no_portfolio(*args: object, **kwargs: object) -> None:
        raise AssertionError("the portfolio ran")

    monkeypatch.setattr(ladder, "search_rung", no_portfolio)
    answer = tilefit.solve(
        capture, time_limit=FAR, params=replace(DEFAULT, routes=Routes.only(["sink"]))
    )
    assert answer.status == "solved" and answer.route == Sink.name
    assert answer.placement is not None and check(capture, answer.placement).valid


def test_the_closest_rung_sinks_what_lies_above_the_top_and_decides_by_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The route's try before the portfolio left out, every other route off: the closest
    rung places the capture below the top by the route; off, the tile stays undetermined
    with the closest placement as it was made."""
    import tilefit.verdicts.ladder as ladder

    capture, made = _a_byte_above(monkeypatch)
    monkeypatch.setattr(ladder, "_sunk_early", lambda *args, **kwargs: None)
    answer = tilefit.solve(
        capture, time_limit=FAR, params=replace(DEFAULT, routes=Routes.only(["sink"]))
    )
    assert answer.status == "solved" and answer.route == Sink.name
    assert answer.placement is not None and check(capture, answer.placement).valid
    off = replace(DEFAULT, routes=Routes.without(switchable()))
    answer = tilefit.solve(capture, time_limit=FAR, params=off)
    assert answer.status == "timeout" and answer.closest is made


def test_a_closest_placement_names_the_route_that_made_it() -> None:
    from tilefit.search.closest import Closest

    placement = Placement("p", {})
    made = {s: Closest(1, 11, s, placement).route for s in ("search:sink", "search:descent")}
    assert made == {"search:sink": "sink", "search:descent": "descent"}
    assert Closest(1, 11, "search:partial", placement).route is None
    assert Closest(1, 11, "alignment/first-fit", placement).route is None
