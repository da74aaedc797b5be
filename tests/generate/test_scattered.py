"""Scattered hard tiles: the same for a seed, about the requests asked (validity at the
density and every constraint kind are tested with the planted ones, in test_planted.py)."""

from __future__ import annotations

import pytest

from tilefit.generate.scattered import ScatteredRecipe, scattered_tile
from tilefit.verdicts.check import check


def test_the_same_recipe_gives_the_same_tile() -> None:
    recipe = ScatteredRecipe(requests=400, density=0.9, seed=3)
    assert scattered_tile(recipe) == scattered_tile(recipe)
    other, _ = scattered_tile(ScatteredRecipe(requests=400, density=0.9, seed=4))
    assert other != scattered_tile(recipe)[0]


def test_about_the_requests_asked() -> None:
    for asked in (500, 1000):
        capture, _ = scattered_tile(ScatteredRecipe(requests=asked, density=0.95, seed=1))
        assert 0.5 * asked <= len(capture.requests) <= 1.6 * asked


def test_density_outside_the_unit_interval_is_refused() -> None:
    with pytest.raises(ValueError, match="density"):
        scattered_tile(ScatteredRecipe(density=1.5))


def test_few_requests_on_a_short_horizon() -> None:
    capture, placement = scattered_tile(ScatteredRecipe(requests=60, density=0.9, horizon=12))
    assert check(capture, placement).valid
    assert capture.requests
