"""The constraint-aware orders on a circle: a wrapping unit's area is its arc's steps."""

from __future__ import annotations

from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.model.units import units
from tilefit.search.local.contention import Features


def test_a_wrapping_unit_has_the_area_of_its_arc() -> None:
    loop = Capture(
        name="loop",
        horizon=4,
        period=4,
        memory=Memory(size=100, ranges=(Range(0, 100, "lmem"),)),
        requests=(Request("w", 10, 3, 1), Request("a", 10, 1, 3)),
    )
    features = Features(units(loop), (100, 100), (0, 0), frozenset(), loop.horizon)
    area = dict(features._keys())["area"]
    # w holds steps 3 and 0, a steps 1 and 2: the same area, never a negative one
    assert list(area) == [10 * 2 / 4, 10 * 2 / 4]
