"""The steps of a capture and each lifetime's place among them, by table or by sorting."""

from __future__ import annotations

import random
from bisect import bisect_left

import numpy as np
import pytest

from tilefit.bounds.columns import step_ranks


@pytest.mark.parametrize("horizon", [1, 7, 40, 1000])  # 1000 > 4 x requests: sorted
def test_step_ranks_are_the_sorted_distinct_steps(horizon: int) -> None:
    rng = random.Random(horizon)
    for _ in range(200):
        count = rng.randrange(1, 30)
        starts = [rng.randrange(horizon) for _ in range(count)]
        ends = [rng.randrange(s + 1, horizon + 1) for s in starts]
        points, first, last = step_ranks(np.array(starts), np.array(ends), horizon)
        expected = sorted({0, horizon, *starts, *ends})
        assert points.tolist() == expected
        assert first.tolist() == [bisect_left(expected, s) for s in starts]
        assert last.tolist() == [bisect_left(expected, e) for e in ends]


def test_wrapping_lifetimes_keep_their_places() -> None:
    """A cyclic lifetime's end may come before its start: each is placed on its own."""
    points, first, last = step_ranks(np.array([5, 2]), np.array([1, 4]), 8)
    assert points.tolist() == [0, 1, 2, 4, 5, 8]
    assert first.tolist() == [4, 2]
    assert last.tolist() == [1, 3]
