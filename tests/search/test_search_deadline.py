"""The kernel reads the clock itself: given a deadline already past, a call stops within
CLOCK_EVERY nodes, and the search resumes there and ends exactly as without one."""

from __future__ import annotations

from pathlib import Path

import pytest
from checkout import TESTS
from jit_helpers import run_script

from tilefit.generate.synth import Recipe, make_tile
from tilefit.model.capture import Capture
from tilefit.search.blocks import build_model
from tilefit.search.kernel import layout
from tilefit.search.kernel.arrays import FreeProblem, free_problem
from tilefit.search.kernel.branch import CLOCK_EVERY
from tilefit.search.kernel.driver import Run
from tilefit.search.kernel.jit import COMPILED, clock, from_python

HERE = Path(__file__).resolve().parent  # for a child process that imports this module

KEYORDER = [2, 1, 0]  # TAW


def _capture() -> Capture:
    """A synthetic tile the TAW ordering places after 1,225 nodes (without the stretch
    bound; with it, after 130)."""
    return make_tile(Recipe(pressure=0.98, requests=150, layers=6, seed=1))


def _problem() -> FreeProblem:
    model = build_model(_capture())
    # Without the stretch bound: a search long enough for the deadline to cut it.
    return free_problem(model, range(len(model.blocks)), {})


def _uninterrupted(problem: FreeProblem) -> tuple[int, int, dict[int, int] | None]:
    run = Run(problem, KEYORDER)
    status = run.advance(10**9)
    return status, run.nodes, run.bases() if status == layout.FOUND else None


def test_the_clock_reads_monotonic_seconds() -> None:
    import time

    before = time.monotonic()
    now = from_python(clock)()
    assert before <= now <= time.monotonic()


def test_a_deadline_already_past_stops_the_call_at_once() -> None:
    run = Run(_problem(), KEYORDER)
    assert run.advance(10**9, deadline=from_python(clock)() - 1.0) == layout.RUNNING
    assert 1 <= run.nodes <= CLOCK_EVERY


def test_the_search_resumes_after_the_deadline_and_ends_the_same() -> None:
    problem = _problem()
    expected = _uninterrupted(problem)
    assert expected[0] == layout.FOUND
    assert expected[1] > 3 * CLOCK_EVERY  # the deadline really cuts it
    run = Run(problem, KEYORDER)
    calls = 0
    while run.advance(10**9, deadline=0.0) == layout.RUNNING:
        calls += 1
        assert run.nodes <= calls * CLOCK_EVERY
    found = run.bases() if run.status == layout.FOUND else None
    assert (run.status, run.nodes, found) == expected
    assert calls >= 3


PLAIN = """
import json, sys
sys.path[:0] = [{here!r}, {tests!r}]  # the test's folder, and the helpers'
import test_search_deadline as t
from tilefit.search.kernel import layout
from tilefit.search.kernel.driver import Run
problem = t._problem()
run = Run(problem, t.KEYORDER)
slices = []
while run.advance(10**9, deadline=0.0) == layout.RUNNING:
    slices.append(run.nodes)
print(json.dumps([run.status, run.nodes, slices, t._uninterrupted(problem)[1]]))
"""


@pytest.mark.skipif(not COMPILED, reason="without numba the tests above run plain Python")
def test_plain_python_stops_at_the_deadline_as_numba_does() -> None:

    script = PLAIN.format(here=str(HERE), tests=str(TESTS))
    plain = run_script(script, plain=True)
    assert plain == run_script(script, plain=False)
    _, nodes, slices, uninterrupted = plain  # type: ignore[misc]
    assert nodes == uninterrupted
    assert slices and all(n % CLOCK_EVERY == 0 for n in slices)


@pytest.mark.skipif(not COMPILED, reason="plain Python: every kernel is a Python function")
def test_a_kernel_without_its_wrapper_refuses_a_call_from_python() -> None:
    # It would crash the interpreter (a segmentation fault), not raise.
    with pytest.raises(TypeError, match="compiled for other kernels only"):
        clock()
