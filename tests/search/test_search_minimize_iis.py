"""Lowest memory top and irreducible infeasible subsets, against brute force."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import strategies as st
from search_brute import brute_force
from search_captures import count_answers, tiny_captures

from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.model.deadline import Deadline
from tilefit.model.units import units
from tilefit.search import SOLVED, irreducible_subset, minimize
from tilefit.search.problem import Problem
from tilefit.verdicts.check import check

EXAMPLES = 60


def _cut_at(capture: Capture, top: int) -> Capture:
    """Every range cut at ``top``: the storage a memory top of ``top`` leaves."""
    ranges = tuple(replace(r, end=min(r.end, top)) for r in capture.memory.ranges if r.start < top)
    if not ranges:
        return replace(capture, memory=replace(capture.memory, ranges=(Range(0, 0),)))
    return replace(capture, memory=replace(capture.memory, ranges=ranges))


def _only(capture: Capture, keep: set[str]) -> Capture:
    """The capture with just the units named in ``keep``."""
    requests = tuple(
        r for r in capture.requests if r.id in keep or capture.sequence_of.get(r.id) in keep
    )
    ids = {r.id for r in requests} | {s.id for s in capture.sequences if s.id in keep}
    return replace(
        capture,
        requests=requests,
        sequences=tuple(s for s in capture.sequences if s.id in keep),
        conflicts=tuple(c for c in capture.conflicts if c.a in ids and c.b in ids),
    )


def _lowest_top_matches_brute_force(capture: Capture) -> bool:
    """Whether the capture is feasible (and so its lowest top was compared)."""
    result = minimize(Problem(capture), Deadline.start(60))
    if brute_force(capture) is None:
        assert result.placement is None
        return False
    expected = next(
        t for t in range(1, capture.memory.size + 1) if brute_force(_cut_at(capture, t))
    )
    assert result.status == SOLVED
    assert result.least is not None and result.least.optimal
    assert result.least.best_top == expected
    assert result.placement is not None
    assert check(capture, result.placement).valid
    return True


def test_lowest_top_matches_brute_force() -> None:
    feasible, ran = count_answers(
        st.tuples(tiny_captures(max_requests=3)), EXAMPLES, _lowest_top_matches_brute_force
    )
    # Measured: 20 of the 60 cases are feasible, their lowest top compared.
    assert feasible >= ran // 5


def _subset_is_irreducible(capture: Capture) -> bool:
    """Whether the capture is infeasible (and so its subset was checked)."""
    if brute_force(capture) is not None:
        return False
    subset = irreducible_subset(Problem(capture), Deadline.start(60))
    assert subset is not None
    assert set(subset) <= {u.id for u in units(capture)}
    assert brute_force(_only(capture, set(subset))) is None
    for ident in subset:
        assert brute_force(_only(capture, set(subset) - {ident})) is not None
    return True


def test_subset_is_irreducible() -> None:
    infeasible, ran = count_answers(
        st.tuples(tiny_captures(max_requests=4)), 2 * EXAMPLES, _subset_is_irreducible
    )
    # Twice the cases, as about half are feasible (the test drew only infeasible ones
    # before). Measured: 77 of the 120 cases are infeasible, their subset checked.
    assert infeasible >= ran // 2


def test_no_subset_for_a_feasible_capture() -> None:
    capture = Capture("t", 2, Memory(8, (Range(0, 8),)), (Request("a", 4, 0, 1),))
    assert irreducible_subset(Problem(capture), Deadline.start(10)) is None


def test_top_is_the_highest_end_address() -> None:
    reqs = (Request("a", 4, 0, 2), Request("b", 4, 0, 1), Request("c", 4, 1, 2))
    result = minimize(
        Problem(Capture("t", 2, Memory(16, (Range(0, 16),)), reqs)), Deadline.start(10)
    )
    least = result.least
    assert least is not None
    assert (least.lower_bound, least.best_top, least.optimal) == (8, 8, True)
