"""Region groups (``tilefit.search.problem``) prune, never change an answer."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis import HealthCheck, given, settings
from search_brute import brute_force
from search_captures import tiny_captures

from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.search import problem, solve
from tilefit.search.model import build_model
from tilefit.search.problem import free_problem
from tilefit.search.solver import INFEASIBLE, SOLVED, TIMEOUT
from tilefit.verdicts.check import check


@contextmanager
def groups(n: int) -> Iterator[None]:
    """At most n region groups (the default is none)."""
    saved = problem.MAX_GROUPS
    problem.MAX_GROUPS = n
    try:
        yield
    finally:
        problem.MAX_GROUPS = saved


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(tiny_captures(max_requests=5))
def test_same_verdict_with_and_without_groups(capture: Capture) -> None:
    with groups(8):
        with_groups = solve(capture, time_limit=60, node_limit=100_000)
    with groups(0):
        without = solve(capture, time_limit=60, node_limit=100_000)
    assert with_groups.status != TIMEOUT
    assert without.status != TIMEOUT
    assert with_groups.status == without.status
    if with_groups.placement is not None:
        assert check(capture, with_groups.placement).valid


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(tiny_captures(max_requests=4))
def test_groups_agree_with_brute_force(capture: Capture) -> None:
    with groups(8):
        result = solve(capture, time_limit=60, node_limit=100_000)
    assert (result.status == SOLVED) == (brute_force(capture) is not None)


def _classes_capture() -> Capture:
    # Scratch may use [0, 8) and [8, 16); the others only [8, 16): 12 bytes of
    # them live together, within the 16 bytes all may use, not within their 8.
    memory = Memory(16, (Range(0, 8, classes=("scratch",)), Range(8, 16)))
    reqs = [Request("s", 4, 0, 2, cls="scratch")]
    reqs += [Request(f"d{k}", 4, k % 2, 2 + k % 2) for k in range(3)]
    return Capture("classes", 4, memory, tuple(reqs))


def test_groups_of_restricted_blocks() -> None:
    capture = _classes_capture()
    model = build_model(capture)
    with groups(8):
        built = free_problem(model, range(len(model.blocks)), {})
        assert built.n_groups == 1
        assert solve(capture, time_limit=10).status == INFEASIBLE


def test_no_groups_when_every_block_may_go_everywhere() -> None:
    reqs = [Request(f"r{k}", 1 + k, k, k + 3) for k in range(6)]
    capture = Capture("plain", 10, Memory(32, (Range(0, 32),)), tuple(reqs))
    model = build_model(capture)
    with groups(8):
        assert free_problem(model, range(len(model.blocks)), {}).n_groups == 0
