"""The deadline's stretch: how busy the machine is, read from this process's clocks."""

from __future__ import annotations

import time

import pytest

from tilefit.model.deadline import STRETCH_AFTER, STRETCH_MOST, Deadline, stretch_of


@pytest.mark.parametrize(
    ("wall", "cpu", "stretch"),
    [
        (1.0, 1.0, 1.0),  # a core to itself
        (3.0, 1.0, 3.0),  # three processes on one core
        (1.0, 2.0, 1.0),  # two threads on two cores: never below 1
        (10.0, 0.0, STRETCH_MOST),  # waiting on a disk or a child: at most the cap
        (STRETCH_AFTER / 2, 0.0, 1.0),  # too soon to tell
        (5.0, -1.0, 1.0),  # started in the parent of a forked child: the CPU clock differs
    ],
)
def test_stretch_is_wall_over_cpu_between_one_and_the_cap(
    wall: float, cpu: float, stretch: float
) -> None:
    assert stretch_of(wall, cpu) == pytest.approx(stretch)


def test_a_deadline_reads_its_stretch_from_when_it_started() -> None:
    # Started a second ago with this process's CPU as now: it ran nearly nothing in that
    # second, which is what a busy machine looks like from inside.
    deadline = Deadline(time.monotonic() - 1.0, 5.0, cpu_started=time.process_time())
    assert deadline.stretch() == STRETCH_MOST
    # Derived deadlines keep the start on both clocks.
    assert deadline.sooner(1.0).stretch() == STRETCH_MOST
    assert deadline.give_back(2.0).cpu_started == deadline.cpu_started


def test_a_started_deadline_records_the_cpu_clock() -> None:
    before = time.process_time()
    deadline = Deadline.start(1.0)
    assert before <= deadline.cpu_started <= time.process_time()
