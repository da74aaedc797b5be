"""``distinct``: the values of an array each once, ascending, exactly as ``np.unique``."""

from __future__ import annotations

import numpy as np
import pytest

from tilefit.model.distinct import distinct


@pytest.mark.parametrize(
    "values",
    [
        [],
        [7],
        [3, 3, 3],
        [5, -2, 5, 0, -2, 9, 0],
        [2**62, -(2**62), 0, 2**62],
    ],
    ids=["empty", "one", "all equal", "repeats", "extremes"],
)
def test_distinct_is_what_unique_gives(values: list[int]) -> None:
    array = np.array(values, dtype=np.int64)
    got = distinct(array)
    want = np.unique(array)
    assert got.dtype == want.dtype
    assert got.tolist() == want.tolist()


def test_distinct_on_random_draws_is_what_unique_gives() -> None:
    rng = np.random.default_rng(48)
    for size in (2, 10, 1000):
        array = rng.integers(0, size // 2 + 1, size=size, dtype=np.int64)
        assert distinct(array).tolist() == np.unique(array).tolist()
    assert distinct(np.arange(6, dtype=np.int32)).dtype == np.int32


def test_distinct_leaves_its_input_as_it_was() -> None:
    array = np.array([3, 1, 2, 1], dtype=np.int64)
    distinct(array)
    assert array.tolist() == [3, 1, 2, 1]
