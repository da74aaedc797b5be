"""Scattered hard tiles: the same for a seed, every constraint kind (validity at the density
asked is tested with the planted ones, in test_planted.py)."""

from __future__ import annotations

import pytest

from tilefit.generate.planted import contents
from tilefit.generate.scattered import ScatteredRecipe, scattered_tile
from tilefit.verdicts.check import check


def test_the_same_recipe_gives_the_same_tile() -> None:
    recipe = ScatteredRecipe(requests=400, density=0.9, seed=3)
    assert scattered_tile(recipe) == scattered_tile(recipe)
    other, _ = scattered_tile(ScatteredRecipe(requests=400, density=0.9, seed=4))
    assert other != scattered_tile(recipe)[0]


def test_every_constraint_kind_is_present() -> None:
    capture, placement = scattered_tile(ScatteredRecipe(requests=700, density=0.95, seed=2))
    counts = contents(capture)
    for kind in ("sequences", "conflicts", "interleaved", "aligned", "long-lived"):
        assert counts[kind] > 0, kind
    assert {q.cls for q in capture.requests} == {"resident", "output", "activation", "scratch"}
    # Only scratch may lie in the scratch-only host aperture, and some does.
    aperture = next(r for r in capture.memory.ranges if r.classes is not None)
    inside = [
        q for q in capture.requests if aperture.start <= placement.offsets[q.id] < aperture.end
    ]
    assert inside and all(q.cls == "scratch" for q in inside)
    # Members of a sequence keep lifetimes of their own.
    by_id = capture.request_by_id
    assert any(
        len({(by_id[m].start, by_id[m].end) for m in s.members}) > 1 for s in capture.sequences
    )


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
