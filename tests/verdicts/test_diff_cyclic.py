"""``diff`` on a circle: a wrapping lifetime counts at the circle's end and its start."""

from __future__ import annotations

from dataclasses import replace

from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.verdicts.diff import diff


def _loop(wrap_size: int) -> Capture:
    """A circle of 4 steps in 100 B: ``w`` wraps from step 3 round to step 1."""
    return Capture(
        name="loop",
        horizon=4,
        period=4,
        memory=Memory(size=100, ranges=(Range(0, 100, "lmem"),)),
        requests=(
            Request("w", wrap_size, 3, 1),
            Request("a", 60, 0, 2),
            Request("b", 30, 1, 3),
        ),
    )


def test_a_wrapping_request_is_live_at_both_ends_of_the_circle() -> None:
    d = diff(_loop(30), _loop(50))
    live = {(run.start, run.end): (run.base, run.other) for run in d.profile}
    # step 0: w and a; steps 1-2: a and b (a ends at 2); step 2: b; step 3: w
    assert live[(0, 1)] == (90, 110)
    assert live[(3, 4)] == (30, 50)
    assert sum(run.end - run.start for run in d.profile) == 4


def test_the_overload_at_step_0_names_the_wrapping_request_that_grew() -> None:
    d = diff(_loop(30), _loop(50))
    [window] = d.windows
    assert window.step == 0
    assert [(c.id, c.adds) for c in window.causes] == [("w", 20)]
    assert (window.base_live, window.other_live) == (90, 110)


def test_lives_at_knows_the_circle() -> None:
    w = Request("w", 1, 3, 1)
    assert [w.lives_at(t) for t in range(4)] == [True, False, False, True]
    a = replace(w, start=1, end=3)
    assert [a.lives_at(t) for t in range(4)] == [False, True, True, False]
