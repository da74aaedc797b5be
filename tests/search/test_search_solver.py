"""The exact search against brute force on tiny captures of every constraint kind."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from search_brute import brute_force, same_verdict_as_brute_force
from search_captures import captures_with_twins, count_answers, tiny_captures

from tilefit.model.capture import Capture, Conflict, Memory, Range, Request, Sequence
from tilefit.model.deadline import Deadline
from tilefit.search import INFEASIBLE, SOLVED, TIMEOUT, exact_search
from tilefit.search.params import DEFAULT
from tilefit.search.problem import Problem
from tilefit.verdicts.check import check

SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))


def testsame_verdict_as_brute_force() -> None:
    solved, ran = count_answers(st.tuples(tiny_captures()), 250, same_verdict_as_brute_force)
    # Measured on these 250 cases (2026-12-02): 90 solved, 160 infeasible; both branches run.
    assert ran // 5 <= solved <= ran * 4 // 5


def _twinssame_verdict_as_brute_force(capture: Capture) -> bool:
    """Whether the capture is feasible (and so its placement was refereed)."""
    expected = brute_force(capture)
    result = exact_search(Problem(capture), Deadline.start(60), node_limit=200_000)
    assert result.status != TIMEOUT
    assert (result.status == SOLVED) == (expected is not None)
    assert (result.placement is not None) == (result.status == SOLVED)
    if result.placement is None:
        return False
    assert check(capture, result.placement).valid
    return True


def test_twinssame_verdict_as_brute_force() -> None:
    feasible, ran = count_answers(
        st.tuples(captures_with_twins()), 150, _twinssame_verdict_as_brute_force
    )
    # Measured: 34 of the 150 cases are feasible, their placement refereed.
    assert feasible >= ran // 6


def _capture(requests: list[Request], size: int, **kw: object) -> Capture:
    memory = kw.pop("memory", Memory(size, (Range(0, size),)))
    return Capture("t", 10, memory, tuple(requests), **kw)  # type: ignore[arg-type]


def test_fragmentation_needs_the_right_order() -> None:
    # Peak 8 fits in 8 only with the long-lived block at an end.
    reqs = [
        Request("a", 4, 0, 2),
        Request("b", 4, 0, 1),
        Request("c", 4, 1, 2),
        Request("d", 4, 2, 3),
    ]
    result = exact_search(Problem(_capture(reqs, 8)), Deadline.start(10))
    assert result.status == SOLVED
    assert result.placement is not None
    assert check(_capture(reqs, 8), result.placement).valid


def test_infeasible_below_peak_with_alignment() -> None:
    # Live peak 6 <= 8, but two 3-byte blocks aligned to 4 plus a 2-byte one cannot share 8.
    reqs = [Request("a", 3, 0, 1, 4), Request("b", 3, 0, 1, 4), Request("c", 2, 0, 1, 4)]
    assert exact_search(Problem(_capture(reqs, 8)), Deadline.start(10)).status == INFEASIBLE


def test_sequence_with_member_lifetimes_and_conflict() -> None:
    memory = Memory(8, (Range(0, 8),), elements=(0, 4))
    reqs = [Request("m0", 2, 0, 1), Request("m1", 2, 1, 2), Request("x", 4, 0, 2)]
    capture = _capture(
        reqs,
        8,
        memory=memory,
        sequences=(Sequence("s", ("m0", "m1")),),
        conflicts=(Conflict("x", "m1"),),
    )
    result = exact_search(Problem(capture), Deadline.start(10))
    assert result.status == SOLVED
    assert result.placement is not None
    assert check(capture, result.placement).valid


def test_node_limit_gives_the_same_answer_every_time() -> None:
    reqs = [Request(f"r{k}", 3 + k % 4, k % 5, k % 5 + 3, 1 + k % 2) for k in range(14)]
    capture = _capture(reqs, 24)
    first = exact_search(Problem(capture), Deadline.start(60), node_limit=50)
    again = exact_search(Problem(capture), Deadline.start(60), node_limit=50)
    assert first.status == again.status
    assert first.nodes == again.nodes
    assert first.placement == again.placement


def test_node_limit_reached_is_a_timeout_not_infeasible() -> None:
    reqs = [Request(f"r{k}", 5, 0, 1) for k in range(6)]  # peak 30 > 29: infeasible
    reqs += [Request(f"q{k}", 1 + k, k, k + 2) for k in range(8)]
    result = exact_search(Problem(_capture(reqs, 29)), Deadline.start(60), node_limit=1)
    assert result.status in (TIMEOUT, INFEASIBLE)
    assert result.nodes <= 1 or result.status == INFEASIBLE


def test_interchangeable_blocks_are_not_permuted() -> None:
    # Six identical 8 KiB blocks aligned to 32 KiB in five aligned slots: without
    # symmetry breaking the search tries every order of the identical blocks.
    kib = 1024
    reqs = [Request(f"b{k}", 8 * kib, 0, 4, 32 * kib) for k in range(6)]
    capture = Capture("six-in-five", 4, Memory(160 * kib, (Range(0, 160 * kib),)), tuple(reqs))
    result = exact_search(Problem(capture), Deadline.start(30))
    assert result.status == INFEASIBLE
    assert result.nodes <= 10
    # One block fewer fits, one per slot.
    fits = exact_search(Problem(replace(capture, requests=tuple(reqs[:5]))), Deadline.start(30))
    assert fits.status == SOLVED
    assert fits.placement is not None
    assert check(replace(capture, requests=tuple(reqs[:5])), fits.placement).valid


def test_sections_too_large_for_memory_answer_nothing() -> None:
    """A million made-up buffers made sections of 5 billion members: the search asked for
    37 GiB and died with a traceback. Past ``members_most`` it answers nothing, as a
    search out of time does, and the ladder goes on."""
    from tilefit.search.kernel import sections

    lifetimes = [(0, 10), (2, 5), (3, 9), (4, 6)]
    total = int(sections.sweep(lifetimes).members.ptr[-1])  # 16: a member per section each
    assert sections.sweep(lifetimes, most=total).members.ptr[-1] == total == 16
    with pytest.raises(sections.TooLarge):
        sections.sweep(lifetimes, most=total - 1)
    requests = tuple(Request(f"r{k}", 64, s, e) for k, (s, e) in enumerate(lifetimes))
    capture = Capture("members", None, Memory(256, (Range(0, 256),)), requests)
    assert exact_search(Problem(capture), Deadline.start(60)).status == SOLVED
    few = replace(DEFAULT, exact=replace(DEFAULT.exact, members_most=total - 1))
    assert exact_search(Problem(capture), Deadline.start(60), params=few).status == TIMEOUT


def test_tables_that_would_overrun_the_deadline_are_never_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The tables' build reads no clock (S_1's ran seconds past its deadline under load):
    a search whose estimated build (``member_seconds`` per section member) exceeds
    ``build_share`` of its time answers nothing at once, its tables never filled; with
    the time, the same search places the capture."""
    from tilefit.search.kernel import sections

    lifetimes = [(0, 10), (2, 5), (3, 9), (4, 6)]  # 16 section members
    requests = tuple(Request(f"r{k}", 64, s, e) for k, (s, e) in enumerate(lifetimes))
    capture = Capture("members", None, Memory(256, (Range(0, 256),)), requests)
    slow = replace(DEFAULT.exact, member_seconds=10.0, members_always=0)  # 160 s to build
    filled: list[int] = []
    real_fill = sections._fill

    def fill(*args: object) -> None:
        filled.append(1)
        real_fill(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(sections, "_fill", fill)
    late = exact_search(Problem(capture), Deadline.start(60), params=replace(DEFAULT, exact=slow))
    assert (late.status, filled) == (TIMEOUT, [])
    fast = replace(slow, member_seconds=1.0)  # 16 s to build: within half of 60 s
    found = exact_search(Problem(capture), Deadline.start(60), params=replace(DEFAULT, exact=fast))
    assert found.status == SOLVED and filled == [1]
    small = replace(slow, members_always=16)  # so few members are always built
    assert (
        exact_search(
            Problem(capture), Deadline.start(60), params=replace(DEFAULT, exact=small)
        ).status
        == SOLVED
    )
