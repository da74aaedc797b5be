"""The bounds agree with brute force over every step and every union of allowed sets."""

from __future__ import annotations

from itertools import combinations, pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilefit.bounds import columns
from tilefit.bounds.deficit import MAX_EXHAUSTIVE_SETS, bound, live_profile
from tilefit.model.capture import Capture, Memory, Range, Request

MEMORY = Memory(
    size=100,
    ranges=(Range(0, 80, "main"), Range(80, 100, "host", ("scratch",))),
    interleaved_offset=60,
)


def capture_of(*requests: Request, memory: Memory = MEMORY, horizon: int = 10) -> Capture:
    return Capture("t", horizon, memory, requests)


def test_peak_contributors_and_class_totals() -> None:
    report = bound(
        capture_of(
            Request("w", 30, 0, 10, cls="resident", label="weights"),
            Request("a", 20, 2, 5, cls="activation"),
            Request("b", 30, 3, 6, cls="activation"),
            Request("s", 10, 3, 4, cls="scratch"),
            Request("late", 80, 6, 10),
        )
    )
    assert report.available == 100
    assert report.lower_bound == 110
    assert report.peak_step == 6  # steps 6-9 hold 110 B; step 3 only 90 B
    assert [c.id for c in report.contributors] == ["late", "w"]
    assert report.deficit == 10


def test_earliest_peak_and_ties_in_capture_order() -> None:
    report = bound(
        capture_of(
            Request("a", 20, 2, 5, cls="activation"),
            Request("w", 30, 0, 10, cls="resident", label="weights"),
            Request("b", 30, 3, 6, cls="activation"),
            Request("c", 20, 7, 9),
            Request("d", 30, 7, 9),
        )
    )
    assert report.lower_bound == 80
    assert report.peak_step == 3
    assert [(c.id, c.size, c.cls, c.label) for c in report.contributors] == [
        ("w", 30, "resident", "weights"),
        ("b", 30, "activation", None),
        ("a", 20, "activation", None),
    ]
    assert report.class_totals == (("activation", 50), ("resident", 30))
    assert report.deficit == 0


def test_storage_open_only_to_scratch_shows_in_the_support_bound() -> None:
    # 90 B of weights fit in 100 B available, but only 80 B are open to them.
    report = bound(capture_of(Request("w", 90, 0, 10, cls="resident"), Request("s", 5, 0, 2)))
    assert report.deficit == 0
    s = report.support
    assert (report.support_deficit, s.step, s.demand, s.capacity) == (15, 0, 95, 80)
    assert s.union == ((0, 80),)
    assert s.ranges == ("main",)
    assert s.classes == ("resident", "default")
    assert s.exhaustive


def test_interleaved_requests_have_their_own_allowed_set() -> None:
    report = bound(capture_of(Request("v", 30, 0, 10, interleaved=True), Request("u", 20, 0, 10)))
    assert report.support_deficit == 10  # 30 B must fit in [60, 80)
    assert report.support.union == ((60, 80),)
    assert report.support.classes == ("default (interleaved)",)


def test_no_deficit_reports_the_tightest_union_with_demand() -> None:
    report = bound(capture_of(Request("w", 70, 0, 10, cls="resident")))
    s = report.support
    assert (s.deficit, s.demand, s.capacity, s.union) == (0, 70, 80, ((0, 80),))


def test_empty_capture() -> None:
    report = bound(capture_of())
    assert (report.lower_bound, report.peak_step, report.deficit, report.support_deficit) == (
        0,
        0,
        0,
        0,
    )
    assert report.contributors == ()
    assert live_profile(capture_of()).segments[0].live == ()


def test_many_distinct_allowed_sets_are_not_enumerated_exhaustively() -> None:
    k = MAX_EXHAUSTIVE_SETS + 1
    # One 10 B range per class, and spare room that no request may use.
    ranges = [Range(10 * g, 10 * g + 10, None, (f"c{g}",)) for g in range(k)]
    ranges.append(Range(10 * k, 20 * k, "spare", ("nobody",)))
    memory = Memory(20 * k, tuple(ranges))
    requests = [Request(f"r{g}", 10, 0, 1, cls=f"c{g}") for g in range(k)]
    requests.append(Request("extra", 5, 0, 1, cls="c3"))
    report = bound(capture_of(*requests, memory=memory))
    assert not report.support.exhaustive
    assert report.deficit == 0
    assert report.support_deficit == 5
    assert report.support.union == ((30, 40),)


def test_live_profile_runs() -> None:
    profile = live_profile(
        capture_of(
            Request("w", 30, 0, 10, cls="resident"),
            Request("a", 20, 2, 5, cls="activation"),
            Request("b", 20, 5, 7, cls="activation"),  # a and b: one run [2, 7)
        )
    )
    assert profile.classes == ("resident", "activation")
    assert [(s.start, s.end, s.live, s.total) for s in profile.segments] == [
        (0, 2, (30, 0), 30),
        (2, 7, (30, 20), 50),
        (7, 10, (30, 0), 30),
    ]


# --- brute force -------------------------------------------------------------

CLASSES = ("default", "scratch", "resident")


@st.composite
def captures(draw: st.DrawFn) -> Capture:
    size = draw(st.integers(4, 40))
    cuts = sorted(draw(st.sets(st.integers(0, size), min_size=2, max_size=6)))
    ranges = tuple(
        Range(s, e, None, draw(st.none() | st.sets(st.sampled_from(CLASSES)).map(tuple)))
        for s, e in pairwise(cuts)
        if draw(st.integers(0, 3))
    ) or (Range(cuts[0], cuts[-1]),)
    memory = Memory(size, ranges, (0,), draw(st.none() | st.integers(0, size)))
    horizon = draw(st.integers(1, 8))
    requests = []
    for k in range(draw(st.integers(0, 8))):
        start = draw(st.integers(0, horizon - 1))
        requests.append(
            Request(
                f"r{k}",
                draw(st.integers(1, 12)),
                start,
                draw(st.integers(start + 1, horizon)),
                cls=draw(st.sampled_from(CLASSES)),
                interleaved=draw(st.booleans()),
            )
        )
    return Capture("random", horizon, memory, tuple(requests))


def allowed(memory: Memory, r: Request) -> frozenset[int]:
    low = memory.size if memory.interleaved_offset is None else memory.interleaved_offset
    return frozenset(
        x
        for rng in memory.ranges
        if rng.classes is None or r.cls in rng.classes
        for x in range(rng.start, rng.end)
        if not r.interleaved or x >= low
    )


def live_at(capture: Capture, t: int) -> list[Request]:
    return [r for r in capture.requests if r.start <= t < r.end]


@settings(max_examples=200, deadline=None)
@given(captures())
def test_lower_bound_and_profile_match_a_per_step_sum(capture: Capture) -> None:
    per_step = [sum(r.size for r in live_at(capture, t)) for t in range(capture.horizon)]
    report = bound(capture)
    assert report.lower_bound == max(per_step)
    assert report.peak_step == per_step.index(max(per_step))
    assert sorted(c.id for c in report.contributors) == sorted(
        r.id for r in live_at(capture, report.peak_step)
    )
    sizes = [c.size for c in report.contributors]
    assert sizes == sorted(sizes, reverse=True)
    assert report.deficit == max(
        0, max(per_step) - sum(r.end - r.start for r in capture.memory.ranges)
    )

    profile = live_profile(capture)
    assert profile.segments[0].start == 0
    assert profile.segments[-1].end == capture.horizon
    for a, b in pairwise(profile.segments):
        assert a.end == b.start
        assert a.live != b.live
    for seg in profile.segments:
        for t in range(seg.start, seg.end):
            live = live_at(capture, t)
            assert seg.live == tuple(
                sum(r.size for r in live if r.cls == cls) for cls in profile.classes
            )


@settings(max_examples=200, deadline=None)
@given(captures())
def test_support_deficit_matches_every_subset_of_allowed_sets(capture: Capture) -> None:
    memory = capture.memory
    sets = sorted({allowed(memory, r) for r in capture.requests}, key=sorted)
    worst = 0
    for t in range(capture.horizon):
        live = live_at(capture, t)
        for k in range(len(sets) + 1):
            for chosen in combinations(sets, k):
                union = frozenset().union(*chosen)
                demand = sum(r.size for r in live if allowed(memory, r) <= union)
                worst = max(worst, demand - len(union))
    report = bound(capture)
    assert report.support_deficit == worst
    assert report.support_deficit >= report.deficit

    # The reported witness is consistent with itself.
    s = report.support
    union = frozenset(x for start, end in s.union for x in range(start, end))
    assert s.capacity == len(union)
    demand = sum(r.size for r in live_at(capture, s.step) if allowed(memory, r) <= union)
    assert s.demand == demand
    assert s.deficit == max(0, demand - len(union))


def test_demand_in_chunks_gives_the_same_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    capture = capture_of(
        Request("w", 50, 0, 10, cls="resident"),
        Request("v", 30, 1, 4, interleaved=True),
        Request("a", 20, 2, 5, cls="activation"),
        Request("s", 25, 3, 8, cls="scratch"),
        Request("b", 40, 6, 9),
    )
    whole = bound(capture)
    monkeypatch.setattr(columns, "_CHUNK_CELLS", 1)
    assert bound(capture) == whole
    assert whole.support_deficit == 25  # all 125 B live at step 3 in 100 B


def test_sizes_past_float_precision_stay_exact() -> None:
    big = 2**53
    memory = Memory(
        4 * big, (Range(0, 2 * big, "low", ("a",)), Range(2 * big, 4 * big, "rest", ("b",)))
    )
    report = bound(
        capture_of(
            Request("p", big + 1, 0, 5, cls="a"),
            Request("q", big + 3, 2, 8, cls="a"),
            Request("r", 1, 6, 9),
            memory=memory,
        )
    )
    assert (report.lower_bound, report.peak_step) == (2 * big + 4, 2)
    assert report.support_deficit == 4
    assert report.support.union == ((0, 2 * big),)
    assert live_profile(capture_of(Request("p", big + 1, 0, 5), memory=memory)).segments[
        0
    ].live == (big + 1,)


def test_support_names_only_the_classes_live_at_its_step() -> None:
    # resident and default share one allowed set; only default is live at step 4.
    report = bound(
        capture_of(
            Request("w", 70, 1, 3, cls="resident"),
            Request("x", 30, 4, 6),
            Request("y", 75, 4, 6),
        )
    )
    s = report.support
    assert (s.step, s.demand, s.capacity, s.classes) == (4, 105, 80, ("default",))
