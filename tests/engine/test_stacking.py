"""Issue 48, item 4: never nothing. Where the deadline ends the greedy passes before any
places the capture, the stacking (every unit above the one before it) still answers
whenever the memory holds it; its placements always pass the referee."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import pytest
from engine_helpers import captures
from hypothesis import given, settings
from hypothesis import strategies as st

from tilefit.engine.attempt import Attempt, Prepared, prepare, run_strategy
from tilefit.engine.stacking import NAME, stack
from tilefit.engine.strategy import Strategy
from tilefit.model.capture import Capture, Conflict, Memory, Range, Request, Sequence
from tilefit.model.deadline import STRETCH_MOST, Deadline
from tilefit.model.placement import placement_top
from tilefit.search.problem import Problem
from tilefit.verdicts import ladder
from tilefit.verdicts.check import check
from tilefit.verdicts.climb import Climb, Entry
from tilefit.verdicts.solving import solve
from tilefit.verdicts.verdict import Verdict

# Four requests whose lifetimes all meet, 16 + 8 + 24 + 8 = 56 bytes: stacked in capture
# order, with c 16-aligned, they end at 64.
FOUR = Capture(
    name="four",
    horizon=4,
    memory=Memory(64, (Range(0, 64),)),
    requests=(
        Request("a", 16, 0, 4),
        Request("b", 8, 1, 3),
        Request("c", 24, 0, 2, alignment=16),
        Request("d", 8, 2, 4),
    ),
)


def test_stacking_puts_each_unit_above_the_one_before() -> None:
    placement = stack(prepare(FOUR))
    assert placement is not None
    assert dict(placement.offsets) == {"a": 0, "b": 16, "c": 32, "d": 56}
    assert check(FOUR, placement).valid


def test_stacking_says_none_where_the_memory_does_not_hold_it() -> None:
    assert stack(prepare(replace(FOUR, memory=Memory(63, (Range(0, 63),))))) is None


def test_stacking_keeps_classes_conflicts_and_sequences() -> None:
    capture = Capture(
        name="kept",
        horizon=4,
        memory=Memory(
            128,
            (Range(0, 32, classes=("scratch",)), Range(32, 128)),
            elements=(0, 32, 64, 96),
        ),
        requests=(
            Request("w", 8, 0, 4),  # not scratch: above 32
            Request("s", 8, 0, 4, cls="scratch"),  # may go below 32, but only above w
            Request("m1", 4, 0, 2),
            Request("m2", 4, 1, 3),
            Request("x", 4, 0, 4),  # in conflict with w: not in w's element
        ),
        sequences=(Sequence("seq", ("m1", "m2")),),
        conflicts=(Conflict("x", "w"),),
    )
    placement = stack(prepare(capture))
    assert placement is not None
    offsets = placement.offsets
    assert offsets["w"] == 32 and offsets["s"] == 40
    assert offsets["m2"] == offsets["m1"] + 4
    assert offsets["x"] >= 64  # past the element [32, 64) that w touches
    assert check(capture, placement).valid


@settings(max_examples=300, deadline=None)
@given(captures())
def test_every_stacked_placement_passes_the_referee(capture: Capture) -> None:
    placement = stack(prepare(capture))
    if placement is None:
        return  # the memory does not hold it stacked: nothing to referee
    assert check(capture, placement).valid


@settings(max_examples=200, deadline=None)
@given(captures())
def test_stacking_finds_a_placement_in_a_memory_made_to_hold_it(capture: Capture) -> None:
    # One range for every class, no elements, no interleaving, no conflicts, and room for
    # every byte and every alignment gap: stacking must place it, at a top it can reach.
    room = sum(r.size + r.alignment for r in capture.requests) * 2
    requests = tuple(replace(r, interleaved=False) for r in capture.requests)
    roomy = replace(
        capture, memory=Memory(room, (Range(0, room),)), requests=requests, conflicts=()
    )
    placement = stack(prepare(roomy))
    assert placement is not None
    assert check(roomy, placement).valid
    assert placement_top(roomy, placement.offsets) <= room


def test_a_deadline_reached_before_any_pass_still_answers_with_the_stacking() -> None:
    # A limit of a nanosecond has passed before the first greedy pass: the stacking is
    # the answer, refereed at the ladder's exit, and --minimize's top is its top.
    answer = solve(FOUR, time_limit=1e-9, minimize=True)
    assert answer.verdict is Verdict.FRAGMENTATION and answer.strategy == NAME
    assert answer.placement is not None and check(FOUR, answer.placement).valid
    assert answer.least is not None and answer.least.best_top == 64
    assert answer.cut  # and it says that its passes were cut


def test_without_room_for_the_stacking_a_cut_ladder_still_answers_nothing() -> None:
    # The same cut with one byte less: the stacking does not fit, and nothing is made up.
    tight = replace(FOUR, memory=Memory(63, (Range(0, 63),)))
    answer = solve(tight, time_limit=1e-9, minimize=True)
    assert answer.placement is None and answer.verdict is not Verdict.FRAGMENTATION


def test_on_a_busy_machine_the_passes_keep_the_stacking_s_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A deadline that started a second ago in which this process ran almost no CPU: the
    # machine is busy (stretch 8), so the stacking's and the referee's reserves, 8 times
    # their free-core cost (2000 uniform requests: 0.18 s), outlast the 0.1 s left: no
    # greedy pass starts and the stacking answers. Unstretched (0.022 s), a pass would.
    many = Capture(
        name="many",
        horizon=2,
        memory=Memory(1 << 20, (Range(0, 1 << 20),)),
        requests=tuple(Request(f"r{k}", 8, 0, 2) for k in range(2000)),
    )
    started: list[str] = []

    def run(prepared: Prepared, strategy: Strategy, stop: Callable[[], bool]) -> Attempt:
        started.append(strategy.name)
        return run_strategy(prepared, strategy, stop)

    monkeypatch.setattr(ladder, "run_strategy", run)
    problem = Problem(many)
    deadline = Deadline(time.monotonic() - 1.0, 1.1, cpu_started=time.process_time())
    assert deadline.stretch() == STRETCH_MOST
    climb = Climb(Entry.STRATEGIES, False, True, None, ())
    answer = ladder.climb_ladder(problem, deadline, climb)
    assert started == []
    assert answer.strategy == NAME and answer.placement is not None
    assert check(many, answer.placement).valid
    # On a free core (the CPU keeping up with the wall) the passes run and place it.
    free = Deadline(time.monotonic(), 30.0, cpu_started=time.process_time())
    assert ladder.climb_ladder(Problem(many), free, climb).strategy != NAME
    assert started


@st.composite
def uniform_captures(draw: st.DrawFn) -> Capture:
    """Captures the shortcut takes: requests of any sizes, alignments and lifetimes, one
    allowed interval for all, no sequence and no conflict; memories from tight to roomy."""
    count = draw(st.integers(1, 12))
    requests = tuple(
        Request(
            f"r{k}",
            draw(st.integers(1, 40)),
            start := draw(st.integers(0, 5)),
            draw(st.integers(start + 1, 6)),
            alignment=draw(st.sampled_from((1, 2, 4, 8, 16))),
        )
        for k in range(count)
    )
    low = draw(st.integers(0, 24))
    high = low + draw(st.integers(1, 600))
    size = high + draw(st.integers(0, 16))
    elements = (0, size // 2) if draw(st.booleans()) and size > 1 else ()
    memory = Memory(size, (Range(low, high),), elements=elements)
    return Capture(name="uniform", horizon=6, memory=memory, requests=requests)


@settings(max_examples=300, deadline=None)
@given(uniform_captures())
def test_a_uniform_capture_stacks_as_the_general_walk_does(capture: Capture) -> None:
    # The uniform shortcut against the general walk with its obstacles, on the same units.
    general = Prepared.of(capture, uniform_from=1 << 40)
    shortcut = Prepared.of(capture, uniform_from=0)
    assert general.uniform is None and shortcut.uniform is not None
    stacked = stack(shortcut)
    assert stacked == stack(general)
    if stacked is not None:
        assert list(stacked.offsets) == [r.id for r in capture.requests]
        assert check(capture, stacked).valid


def test_the_uniform_shortcut_keeps_alignment_and_the_interval() -> None:
    # FOUR with one allowed interval [8, 64) for all: from 8 up, c 16-aligned at 32.
    capture = replace(FOUR, memory=Memory(64, (Range(8, 64),)))
    prepared = Prepared.of(capture, uniform_from=0)
    assert prepared.uniform is not None
    placement = stack(prepared)
    assert placement is not None
    assert dict(placement.offsets) == {"a": 8, "b": 24, "c": 32, "d": 56}
    assert check(capture, placement).valid
    short = replace(capture, memory=Memory(64, (Range(8, 63),)))
    assert stack(Prepared.of(short, uniform_from=0)) is None
