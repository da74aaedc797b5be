"""The time index returns exactly the placed requests alive during a lifetime."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from tilefit.engine.occupancy import Occupancy, bucket_width
from tilefit.model.capture import Request

HORIZON = 40


@st.composite
def blocks(draw: st.DrawFn) -> list[tuple[int, int, int, int]]:
    """Placed (lo, hi, start, end), some alive from step 0, to the horizon or throughout."""
    out = []
    for k in range(draw(st.integers(0, 30))):
        start = draw(st.integers(0, HORIZON - 1))
        end = draw(st.one_of(st.integers(start + 1, HORIZON), st.just(HORIZON)))
        if draw(st.integers(0, 5)) == 0:
            start = 0
        out.append((k * 10, k * 10 + draw(st.integers(1, 10)), start, end))
    return out


@settings(max_examples=300, deadline=None)
@given(
    blocks(),
    st.integers(1, 12),
    st.integers(0, HORIZON - 1),
    st.integers(1, HORIZON),
    st.booleans(),
)
def test_alive_is_exactly_the_intersecting_requests(
    placed: list[tuple[int, int, int, int]], width: int, start: int, length: int, union: bool
) -> None:
    end = min(HORIZON, start + length)
    occupancy = Occupancy(HORIZON, width, keep_union=union)
    for lo, hi, s, e in placed:
        occupancy.add(lo, hi, s, e)
    expected = Counter((lo, hi) for lo, hi, s, e in placed if s < end and start < e)
    # Whole-horizon requests come back merged when they touch; compare addresses covered.
    found = occupancy.alive(start, end)
    assert _covered(found) == _covered(list(expected.elements()))
    # Nothing else is listed twice.
    partial = [iv for iv in found if iv in expected]
    assert len(partial) == len(set(partial))
    assert occupancy.peak == max((hi for _, hi, _, _ in placed), default=0)


def _covered(intervals: list[tuple[int, int]]) -> set[int]:
    return {a for lo, hi in intervals for a in range(lo, hi)}


def test_touching_whole_horizon_requests_merge() -> None:
    occupancy = Occupancy(10, 2)
    occupancy.add(8, 12, 0, 10)
    occupancy.add(0, 4, 0, 10)
    occupancy.add(4, 8, 0, 10)
    occupancy.add(20, 24, 0, 10)
    assert sorted(occupancy.alive(3, 4)) == [(0, 12), (20, 24)]


def test_bucket_width_grows_with_lifetimes_and_shrinks_with_density() -> None:
    short = tuple(Request(f"r{k}", 1, k + 1, k + 3) for k in range(100))
    long = tuple(Request(f"r{k}", 1, k + 1, k + 51) for k in range(100))
    assert bucket_width(short, 200) < bucket_width(long, 200)
    # The same requests spread over a longer horizon start less often per step.
    assert bucket_width(long, 200) < bucket_width(long, 2000)
    assert bucket_width((Request("all", 1, 0, 200),), 200) == 200


def test_the_bucket_width_median_is_the_statistics_median() -> None:
    # occupancy's own median, which spares every replay the statistics module's import.
    import random
    import statistics

    from tilefit.engine.occupancy import _median

    draw = random.Random(48)
    for size in (1, 2, 3, 10, 11):
        values = [draw.randrange(1, 50) for _ in range(size)]
        assert _median(values) == statistics.median(values)
        assert type(_median(values)) is type(statistics.median(values))
