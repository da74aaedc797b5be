"""Bounds on a circle of steps: the live load step by step and the heaviest set of
pairwise-meeting requests, each against brute force on tiny cyclic captures."""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

from cyclic_captures import PERIOD, cyclic_captures, loop, meet_by_steps, steps_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from search_brute import brute_force
from search_captures import count_answers

from tilefit.bounds.deficit import bound, live_profile
from tilefit.bounds.meeting import heaviest_meeting
from tilefit.bounds.top import top_lower_bound
from tilefit.formats.load import capture_from_json
from tilefit.model.capture import Capture, Memory, Range, Request

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


def _heaviest_by_subsets(capture: Capture) -> int:
    rs = capture.requests
    return max(
        sum(r.size for r in group)
        for n in range(len(rs) + 1)
        for group in combinations(rs, n)
        if all(meet_by_steps(a, b) for a, b in combinations(group, 2))
    )


def _busiest_step(capture: Capture) -> int:
    return max(sum(r.size for r in capture.requests if t in steps_of(r)) for t in range(PERIOD))


def _meeting_as_brute_force(capture: Capture) -> bool:
    meeting = heaviest_meeting(capture)
    assert meeting.weight == _heaviest_by_subsets(capture)
    chosen = [capture.request_by_id[i] for i in meeting.ids]
    assert sum(r.size for r in chosen) == meeting.weight
    assert all(meet_by_steps(a, b) for a, b in combinations(chosen, 2))
    assert list(meeting.ids) == [r.id for r in capture.requests if r.id in meeting.ids]
    return meeting.weight > _busiest_step(capture)


def test_the_meeting_bound_is_the_heaviest_pairwise_meeting_set() -> None:
    beyond, ran = count_answers(
        st.tuples(cyclic_captures(max_requests=7)), 300, _meeting_as_brute_force
    )
    # Measured (2026-12-06): 41 of the 300 sets weigh more than any step holds.
    assert ran // 20 <= beyond


@SETTINGS
@given(cyclic_captures(max_requests=6))
def test_the_step_bounds_count_each_step_on_the_circle(capture: Capture) -> None:
    report = bound(capture)
    assert report.lower_bound == _busiest_step(capture)
    peak = report.peak_step
    assert {c.id for c in report.contributors} == {
        r.id for r in capture.requests if peak in steps_of(r)
    }
    assert report.meeting is not None and report.meeting.weight >= report.lower_bound
    profile = live_profile(capture)
    for segment in profile.segments:
        for t in range(segment.start, segment.end):
            assert segment.total == sum(r.size for r in capture.requests if t in steps_of(r))


def _least_top(capture: Capture) -> int | None:
    """The least memory top of a placement, by brute force (None: none at all)."""
    size = capture.memory.size
    for top in range(1, size + 1):
        if brute_force(replace(capture, memory=Memory(top, (Range(0, top),)))) is not None:
            return top
    return None


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(cyclic_captures(max_requests=4), st.integers(8, 16))
def test_no_placement_beats_the_bounds(capture: Capture, size: int) -> None:
    plain = tuple(Request(r.id, r.size, r.start, r.end, r.alignment) for r in capture.requests)
    capture = replace(
        capture, memory=Memory(size, (Range(0, size),)), requests=plain, sequences=(), conflicts=()
    )
    least = _least_top(capture)
    meeting = heaviest_meeting(capture).weight
    if least is None:  # nothing fits even the whole memory
        return
    assert meeting <= least
    assert top_lower_bound(capture) <= least


@SETTINGS
@given(cyclic_captures(max_requests=4))
def test_a_meeting_deficit_proves_that_no_placement_exists(capture: Capture) -> None:
    report = bound(capture)
    if report.proves_deficit:
        assert brute_force(capture) is None


def test_three_arcs_that_meet_pairwise_exceed_every_step() -> None:
    obj = loop()
    obj["memory"] = {"size": 30, "ranges": [{"start": 0, "end": 30}]}
    report = bound(capture_from_json(obj))
    assert report.lower_bound == 25 and report.deficit == 0
    assert report.meeting is not None
    assert report.meeting.weight == 35 and report.meeting.ids == ("a", "b", "c", "h")
    assert report.meeting_deficit == 5 and report.proves_deficit and report.leaving == 5
    assert top_lower_bound(capture_from_json(loop())) == 35


def test_a_linear_capture_has_no_meeting_bound() -> None:
    obj = loop()
    del obj["period"]
    obj["requests"] = obj["requests"][1:]
    report = bound(capture_from_json(obj))
    assert report.meeting is None and report.meeting_deficit == 0
