"""Every combination of the exact kernel's prunings against brute force (MiniMalloc's
manner): switched on or off in any combination, the prunings cut nodes, never an answer.
Each switch is also shown to reach the kernel: switched, it changes a search it acts on."""

from __future__ import annotations

import itertools
from dataclasses import fields, replace

import pytest
from hypothesis import strategies as st
from search_brute import brute_force, valid
from search_captures import (
    branching_captures,
    captures_with_twins,
    count_answers,
    tiny_captures,
)
from search_growth_cases import CASES

from tilefit.generate.planted import PlantedRecipe, planted_tile
from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.model.deadline import Deadline
from tilefit.search import INFEASIBLE, SOLVED, TIMEOUT, exact_search
from tilefit.search.params import ExactParams, Prunings, SearchParams
from tilefit.search.problem import Problem
from tilefit.verdicts.check import check

NAMES = tuple(f.name for f in fields(Prunings))
COMBINATIONS = tuple(
    Prunings(**dict(zip(NAMES, switches, strict=True)))
    for switches in itertools.product((False, True), repeat=len(NAMES))
)


def test_the_combinations_are_every_one() -> None:
    assert len(set(COMBINATIONS)) == 2 ** len(NAMES) == 16
    assert set(NAMES) == {"dominance", "decomposition", "twin", "stretch"}


def _nodes_by_combination(capture: Capture, nodes: dict[Prunings, int]) -> bool:
    """Every combination gives brute force's verdict and a valid placement; adds each
    combination's nodes to ``nodes``; whether the capture is feasible."""
    expected = brute_force(capture)
    for prunings in COMBINATIONS:
        result = exact_search(
            Problem(capture), Deadline.start(60), 200_000, params=SearchParams(prunings=prunings)
        )
        assert result.status != TIMEOUT, prunings
        assert (result.status == SOLVED) == (expected is not None), prunings
        assert (result.placement is not None) == (result.status == SOLVED), prunings
        if result.placement is not None:
            assert check(capture, result.placement).valid, prunings
            assert valid(capture, dict(result.placement.offsets)), prunings
        nodes[prunings] = nodes.get(prunings, 0) + result.nodes
    return expected is not None


@pytest.fixture(scope="module")
def nodes() -> dict[Prunings, int]:
    """The nodes of every combination over the same 120 drawn captures (tiny ones, some
    with twins, some with more blocks to a section), once each check above has held on
    every one of them."""
    totals: dict[Prunings, int] = {}
    cases = st.one_of(tiny_captures(), captures_with_twins(), branching_captures())
    feasible, ran = count_answers(st.tuples(cases), 120, lambda c: _nodes_by_combination(c, totals))
    # Both verdicts are drawn often enough to matter (measured: about a third feasible).
    assert ran == 120
    assert ran // 6 <= feasible <= ran * 5 // 6
    return totals


def test_every_combination_agrees_with_brute_force(nodes: dict[Prunings, int]) -> None:
    assert set(nodes) == set(COMBINATIONS)


def _six_in_five() -> Capture:
    """Six identical 8 KiB blocks aligned to 32 KiB in five slots: twins, infeasible."""
    kib = 1024
    requests = tuple(Request(f"b{k}", 8 * kib, 0, 4, 32 * kib) for k in range(6))
    return Capture("six-in-five", 4, Memory(160 * kib, (Range(0, 160 * kib),)), requests)


# Where each pruning is known to act: (capture, node limit, its nodes on, its nodes off),
# all else at the defaults (measured with the kernel of 2026-12-02).
ACTS = {
    "dominance": ("synth-1-0.98", 8707, 9068),
    "decomposition": ("kernel-0", 23, 31),
    "stretch": ("synth-1-0.98", 388, 8707),
}


@pytest.mark.parametrize("name", NAMES)
def test_each_switch_reaches_the_kernel(name: str) -> None:
    """Switching one pruning from its default changes the search where it should act: the
    switch reaches the kernel. (The twin rule on six twins cuts the 6! orders of the
    identical blocks; the others, recorded cases of ``search_growth_cases``.)"""
    flipped = SearchParams(prunings=replace(Prunings(), **{name: not getattr(Prunings(), name)}))
    by_default = SearchParams()
    if name == "twin":
        on = exact_search(Problem(_six_in_five()), Deadline.start(60), 1_000_000, params=by_default)
        off = exact_search(Problem(_six_in_five()), Deadline.start(60), 1_000_000, params=flipped)
        assert on.status == off.status == INFEASIBLE
        assert on.nodes <= 10 < 100 < off.nodes
        return
    case, nodes_on, nodes_off = ACTS[name]
    capture, limit = CASES[case]
    on_params, off_params = (flipped, by_default) if name == "stretch" else (by_default, flipped)
    on = exact_search(Problem(capture), Deadline.start(60), limit, params=on_params)
    off = exact_search(Problem(capture), Deadline.start(60), limit, params=off_params)
    assert on.status == off.status == SOLVED
    assert (on.nodes, off.nodes) == (nodes_on, nodes_off)


LEARNING = (
    SearchParams(exact=ExactParams(learning=True)),
    SearchParams(exact=ExactParams(learning=True), prunings=Prunings.none()),
)


def _learning_agrees_with_brute_force(capture: Capture) -> bool:
    """Issue 30's learning restarts, with the prunings on and off, give brute force's
    verdict and valid placements; whether the capture is feasible."""
    expected = brute_force(capture)
    for params in LEARNING:
        result = exact_search(Problem(capture), Deadline.start(60), 200_000, params=params)
        assert result.status != TIMEOUT
        assert (result.status == SOLVED) == (expected is not None)
        if result.placement is not None:
            assert valid(capture, dict(result.placement.offsets))
    return expected is not None


def test_learning_restarts_agree_with_brute_force() -> None:
    cases = st.one_of(tiny_captures(), captures_with_twins(), branching_captures())
    feasible, ran = count_answers(st.tuples(cases), 120, _learning_agrees_with_brute_force)
    assert ran == 120
    assert ran // 6 <= feasible <= ran * 5 // 6  # as above: both verdicts drawn


def test_the_learning_switch_reaches_the_kernel() -> None:
    """On a tile that restarts, the learned key changes the orderings after the first
    (measured: 93 nodes without, 120 with, both solved); the first is the same."""
    capture, _ = planted_tile(PlantedRecipe(requests=40, density=0.95, seed=3, horizon=8))
    without = exact_search(Problem(capture), Deadline.start(60), 200_000)
    learning = exact_search(Problem(capture), Deadline.start(60), 200_000, params=LEARNING[0])
    assert without.status == learning.status == SOLVED
    assert (without.nodes, learning.nodes) == (93, 120)
    assert learning.placement is not None and check(capture, learning.placement).valid
