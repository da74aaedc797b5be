"""Counted nouns agree with their count: 1 hole, 0 holes, 2 holes."""

from __future__ import annotations

from tilefit.model.words import counted, plural


def test_one_is_singular_and_every_other_count_plural() -> None:
    assert [counted(n, "hole") for n in (0, 1, 2)] == ["0 holes", "1 hole", "2 holes"]
    assert counted(1, "strategy", "strategies") == "1 strategy"
    assert counted(16, "strategy", "strategies") == "16 strategies"
    assert [plural(n, "is", "are") for n in (1, 3)] == ["is", "are"]
