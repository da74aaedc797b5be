"""Issue 49: the least memory top above the live bound, by windows refuted with the exact
search (``tilefit.bounds.window``, ``tilefit.search.proofs.least``), against brute force."""

from __future__ import annotations

import time
from dataclasses import replace

from cyclic_captures import cyclic_captures
from hypothesis import strategies as st
from search_brute import brute_force
from search_captures import count_answers, tiny_captures
from test_search_bracket import _at_top

from tilefit.bounds.top import top_lower_bound
from tilefit.bounds.window import window_of, windows_around
from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.model.deadline import Deadline
from tilefit.search.blocks import build_model
from tilefit.search.outcome import Least
from tilefit.search.params import LeastParams, SearchParams
from tilefit.search.problem import Problem
from tilefit.search.proofs.least import Refutation, recheck, window_bound
from tilefit.verdicts.answer import Answer
from tilefit.verdicts.searching import _windowed
from tilefit.verdicts.verdict import Verdict
from tilefit.verdicts.watch import Watch

EXAMPLES = 80
FAR = 60.0  # seconds: tiny windows are settled in milliseconds; never reached


def _least_top(capture: Capture, most: int) -> int | None:
    """The least top at which brute force places ``capture`` (the memory extended above
    its own top where needed), or None up to ``most``."""
    return next((t for t in range(1, most + 1) if brute_force(_at_top(capture, t))), None)


def _ceiling(capture: Capture) -> int:
    return capture.memory.size + sum(r.size for r in capture.requests)


def _bound(
    capture: Capture, transients_most: int = 48, given: int | None = None
) -> tuple[int, int, Refutation | None]:
    """The bound given (default: the capture's live bound with its alignment padding),
    the windows' bound from it, and their refutation."""
    if given is None:
        given = top_lower_bound(capture, build_model(capture).lowest_tops())
    params = SearchParams(least=LeastParams(transients_most=transients_most))
    found = window_bound(capture, given, _ceiling(capture), time.monotonic() + FAR, params=params)
    return given, found.lower, found.refutation


def _never_above_the_least_top(capture: Capture) -> bool:
    """Whether brute force found the least top to compare with. The windows start from a
    bound of 1 B, so that every byte above it is refuted by the search, not given."""
    _, lower, refutation = _bound(capture, given=1)
    least = _least_top(capture, _ceiling(capture))
    if refutation is not None:
        assert recheck(capture, refutation, FAR)
        assert refutation.lower == lower
    if least is None:
        return False
    assert lower <= least
    return True


def test_the_bound_never_exceeds_the_least_top_brute_force_finds() -> None:
    compared, ran = count_answers(
        st.tuples(tiny_captures(max_requests=4)), EXAMPLES, _never_above_the_least_top
    )
    assert ran == EXAMPLES
    assert compared >= ran * 3 // 4


def test_on_a_circle_the_bound_never_exceeds_the_least_top_brute_force_finds() -> None:
    """A wrapping request's two runs are cut to a window apart: still never too high."""
    compared, ran = count_answers(
        st.tuples(cyclic_captures(max_requests=4)), EXAMPLES, _never_above_the_least_top
    )
    assert ran == EXAMPLES
    assert compared >= ran * 3 // 4


def test_a_wrapping_request_lives_in_two_runs_a_window_cuts_apart() -> None:
    wrapping = Request("w", 3, 3, 1)  # steps 3 and 0 of a circle of 4
    capture = Capture("arc", 4, Memory(8, (Range(0, 8),)), (wrapping,), period=4)
    assert window_of(capture, 0, 4).transients == (Request("w#0", 3, 3, 4), Request("w#1", 3, 0, 1))
    assert window_of(capture, 3, 4).held == 3
    assert window_of(capture, 1, 3).transients == ()


@st.composite
def plain_captures(draw: st.DrawFn) -> Capture:
    """Plain intervals (no alignment, class, sequence or conflict) in one range from 0:
    the relaxation is the problem itself, so the widest window is exact."""
    n = draw(st.integers(2, 6))
    horizon = 5
    requests = []
    for k in range(n):
        start = draw(st.integers(0, horizon - 1))
        end = draw(st.integers(start + 1, horizon))
        requests.append(Request(f"r{k}", draw(st.integers(1, 4)), start, end))
    size = sum(r.size for r in requests)
    memory = Memory(size, (Range(0, size),))
    return Capture("plain", horizon, memory, tuple(requests))


def _exact_on_plain_intervals(capture: Capture) -> bool:
    """Whether a window refuted a top (from 1 B up, every byte of the bound is one)."""
    _, lower, refutation = _bound(capture, len(capture.requests) * 2, given=1)
    least = _least_top(capture, capture.memory.size)
    assert least is not None  # stacked, everything fits
    assert lower == least
    if lower == 1:
        return False  # the bound given is the least top: nothing to refute
    assert refutation is not None and recheck(capture, refutation, FAR)
    return True


def test_on_plain_intervals_the_windows_find_the_least_top() -> None:
    proved, ran = count_answers(st.tuples(plain_captures()), EXAMPLES, _exact_on_plain_intervals)
    assert ran == EXAMPLES
    assert proved >= ran * 3 // 4


def _three_steps() -> Capture:
    """Four requests over three steps, 3 B live at the busiest."""
    requests = (
        Request("a", 1, 0, 2),
        Request("c", 1, 0, 2),
        Request("b", 1, 1, 3),
        Request("d", 2, 2, 3),
    )
    return Capture("three", 3, Memory(8, (Range(0, 8),)), requests)


def test_a_refutation_names_its_window_and_is_rechecked_from_the_capture() -> None:
    capture = _three_steps()
    _, lower, refutation = _bound(capture, given=1)
    assert lower == _least_top(capture, 8) == 3
    assert refutation is not None and refutation.lower == 3
    assert recheck(capture, refutation, FAR)
    # The same window claimed one byte higher: the search places its transients there.
    assert not recheck(capture, replace(refutation, least=refutation.least + 1), FAR)
    # A window recorded for another capture does not recheck on this one.
    other = replace(capture, requests=capture.requests[1:])
    assert not recheck(other, refutation, FAR)


def test_a_window_holds_its_long_lived_requests_apart_from_its_transients() -> None:
    capture = replace(
        _three_steps(), requests=(*_three_steps().requests, Request("w", 5, 0, 3, alignment=4))
    )
    window = window_of(capture, 1, 3)
    assert (window.held, window.held_count) == (5 + 1, 2)  # w and b, through both steps
    assert sorted((r.id, r.start, r.end) for r in window.transients) == [
        ("a", 0, 1),
        ("c", 0, 1),
        ("d", 1, 2),
    ]
    grown = list(windows_around(capture, 1, most=4))
    assert (grown[0].start, grown[0].end) == (1, 2)
    assert all(len(w.transients) <= 4 for w in grown)
    assert _bound(capture, given=1)[1] == 5 + 3


class _Stages(Watch):
    def __init__(self) -> None:
        self.heard: list[str] = []

    def stage(self, text: str, deadline: float | None = None) -> None:
        self.heard.append(text)


def test_the_least_rung_raises_its_lower_end_by_the_windows_when_they_are_on() -> None:
    capture = _three_steps()
    placed = Answer(verdict=Verdict.FRAGMENTATION, least=Least(1, 5))  # a bound of 1 B, a top of 5
    for on, lower in ((True, 3), (False, 1)):
        watch = _Stages()
        params = SearchParams(least=LeastParams(windows=on))
        raised = _windowed(Problem(capture), Deadline.start(FAR), placed, 1, watch, params)
        assert raised.least == Least(lower, 5)
        assert ("least top: windows around the busiest steps" in watch.heard) is on
