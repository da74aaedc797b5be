"""Axis ticks and labels shared by both drawings."""

from __future__ import annotations

import pytest

from tilefit.plot.ticks import address_ticks, byte_label, step_ticks, tick_step


@pytest.mark.parametrize("span", [1, 7, 12, 13, 99, 100, 1000, 4000, 123_457])
def test_decimal_steps_are_1_2_5_and_give_at_most_twelve_ticks(span: int) -> None:
    step = tick_step(span)
    assert int(str(step)[0]) in (1, 2, 5) and set(str(step)[1:]) <= {"0"}
    assert span / step <= 12
    smaller = [s for s in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000) if s < step]
    assert all(span / s > 12 for s in smaller)  # and it is the smallest such step


def test_large_memories_tick_at_powers_of_two_kib() -> None:
    ticks = address_ticks(638_976)
    assert ticks[0] == 0 and ticks[1] == 65_536 and ticks[-1] <= 638_976
    assert len(ticks) <= 13
    assert address_ticks(100) == list(range(0, 101, 10))


def test_step_ticks_reach_the_horizon_when_it_is_a_multiple() -> None:
    assert step_ticks(4) == [0, 1, 2, 3, 4]
    assert step_ticks(4000)[-1] == 4000


def test_byte_labels() -> None:
    assert byte_label(1536, 1000) == "1,536"
    assert byte_label(65_536, 638_976) == "64 KiB"
    assert byte_label(1536, 638_976) == "1.5 KiB"
