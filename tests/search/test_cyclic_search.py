"""The exact search on cyclic captures: a wrapping lifetime is two pieces of one block at
one offset, and the verdict and the least top are those of brute force."""

from __future__ import annotations

from dataclasses import replace

from cyclic_captures import cyclic_captures, loop
from hypothesis import strategies as st
from search_brute import brute_force, same_verdict_as_brute_force
from search_captures import count_answers

from tilefit.formats.load import capture_from_json
from tilefit.model.capture import Capture, Memory, Range
from tilefit.model.deadline import Deadline
from tilefit.search import SOLVED, TIMEOUT, minimize
from tilefit.search.blocks import build_model
from tilefit.search.problem import Problem
from tilefit.verdicts.check import check


def testsame_verdict_as_brute_force_on_a_circle() -> None:
    solved, ran = count_answers(
        st.tuples(cyclic_captures(max_requests=5)), 250, same_verdict_as_brute_force
    )
    assert ran // 10 <= solved <= ran * 9 // 10  # both verdicts met


def test_a_wrapping_request_is_one_block_of_two_pieces_at_one_offset() -> None:
    model = build_model(capture_from_json(loop()))
    a = model.blocks[0]
    assert [(p.request, p.offset, p.start, p.end) for p in a.pieces] == [
        ("a", 0, 0, 1),
        ("a", 0, 3, 4),
    ]
    assert (a.start, a.end) == (0, 4) and not a.rigid
    assert model.offsets({0: 7}) == {"a": 7}


def test_the_least_top_on_a_circle_is_the_meeting_bound_here() -> None:
    capture = capture_from_json(loop())
    result = minimize(Problem(capture), Deadline.start(60))
    assert result.status == SOLVED and result.least is not None and result.least.optimal
    assert result.least.lower_bound == result.least.best_top == 35
    assert result.placement is not None and check(capture, result.placement).valid
    assert brute_force(replace(capture, memory=Memory(34, (Range(0, 34),)))) is None


def _cpsat_as_brute_force(capture: Capture) -> bool:
    from tilefit.peers.cpsat import cpsat_solve
    from tilefit.search.routes import INFEASIBLE
    from tilefit.search.sat.route import CpsatParams, sat_search

    expected = brute_force(capture)
    status, placement, _ = cpsat_solve(capture, 60.0, workers=1)
    assert status != TIMEOUT and (status == SOLVED) == (expected is not None)
    assert placement is None or check(capture, placement).valid
    model = build_model(capture)
    tuned = CpsatParams(workers=1, proves=True)
    routed, bases, search = sat_search(capture, model, Deadline.start(60.0), tuned)
    if routed == SOLVED:
        assert bases is not None and check(capture, search.placement(capture, bases)).valid
    if routed == INFEASIBLE:
        assert expected is None
    return status == SOLVED


def test_cp_sat_takes_a_wrapping_lifetime_as_two_boxes_at_one_offset() -> None:
    solved, ran = count_answers(
        st.tuples(cyclic_captures(max_requests=5)), 80, _cpsat_as_brute_force
    )
    assert ran // 10 <= solved <= ran * 9 // 10
