"""Fits choose among a unit's valid offsets by the spec's rules."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from tilefit.engine.fits import BEST_FIT, FIRST_FIT, FITS, parse_fit
from tilefit.model.capture import Interval


@dataclass
class FakeSpace:
    """A unit's space given by its valid base offsets and its holes."""

    size: int
    valid: tuple[int, ...]
    hole_list: tuple[Interval, ...]

    def lowest(self, at: int) -> int | None:
        return min((b for b in self.valid if b >= at), default=None)

    def holes(self) -> Sequence[Interval]:
        return self.hole_list


def test_first_fit_is_the_lowest_valid_offset() -> None:
    space = FakeSpace(4, (16, 40, 8), ((8, 20), (40, 44)))
    assert FIRST_FIT.choose(space) == 8


def test_best_fit_takes_the_smallest_hole_that_holds_the_unit() -> None:
    # holes of 12, 4 and 2 bytes: the 2-byte one cannot hold 4 bytes.
    space = FakeSpace(4, (8, 9, 40, 60), ((8, 20), (40, 44), (60, 62)))
    assert BEST_FIT.choose(space) == 40


def test_best_fit_ties_go_to_the_lower_hole_and_its_lowest_offset() -> None:
    space = FakeSpace(4, (10, 11, 30), ((30, 36), (10, 16)))
    assert BEST_FIT.choose(space) == 10


def test_best_fit_skips_a_hole_without_a_valid_offset() -> None:
    # Alignment can leave a hole big enough in bytes but with no valid offset in it.
    space = FakeSpace(4, (16,), ((9, 14), (16, 30)))
    assert BEST_FIT.choose(space) == 16


def test_best_fit_falls_back_to_the_lowest_offset_outside_every_hole() -> None:
    # A sequence may fit only by interleaving its members' lifetimes: no hull hole holds it.
    space = FakeSpace(8, (24,), ((0, 4),))
    assert BEST_FIT.choose(space) == 24


@pytest.mark.parametrize("fit", FITS, ids=lambda f: f.name)
def test_no_valid_offset_means_no_choice(fit: object) -> None:
    assert fit.choose(FakeSpace(4, (), ((0, 64),))) is None  # type: ignore[attr-defined]


def test_fits_parse_by_name() -> None:
    assert [f.name for f in FITS] == ["first-fit", "best-fit"]
    assert parse_fit("best-fit") is BEST_FIT
    with pytest.raises(ValueError, match="unknown fit 'worst-fit'"):
        parse_fit("worst-fit")
