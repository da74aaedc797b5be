"""Searches over blocked intervals agree with a byte-by-byte search."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tilefit.model.intervals import free, merge, scan, skip

SENTINEL = (100, 1 << 40)

intervals = st.lists(
    st.tuples(st.integers(0, 90), st.integers(1, 12)).map(lambda t: (t[0], t[0] + t[1])),
    max_size=12,
)


def lowest_clear(
    blocked: list[tuple[int, int]], at: int, size: int, residue: int, modulus: int
) -> int:
    """The answer below the sentinel, or -1."""
    for x in range(at, SENTINEL[0] - size + 1):
        if x % modulus == residue and all(hi <= x or lo >= x + size for lo, hi in blocked):
            return x
    return -1


@settings(max_examples=400, deadline=None)
@given(
    intervals, st.integers(0, 40), st.integers(1, 20), st.sampled_from([1, 2, 4, 8, 3]), st.data()
)
def test_scan_and_skip_find_the_lowest_clear_aligned_offset(
    blocked: list[tuple[int, int]], at: int, size: int, modulus: int, data: st.DataObject
) -> None:
    residue = data.draw(st.integers(0, modulus - 1))
    blocks = sorted([*blocked, SENTINEL])
    expected = lowest_clear(blocks, at, size, residue, modulus)
    found = scan(blocks, at, size, residue, modulus)
    skipped = skip(*merge(blocks), at, size, residue, modulus)
    for x in (found, skipped):
        assert (x if x + size <= SENTINEL[0] else -1) == expected


@given(intervals)
def test_merge_and_free_cover_exactly_the_blocked_and_the_free(
    blocked: list[tuple[int, int]],
) -> None:
    starts, ends = merge(sorted([*blocked, SENTINEL]))
    covered = {a for lo, hi in blocked for a in range(lo, min(hi, 100))}
    assert all(e < s for e, s in zip(ends, starts[1:], strict=False))  # disjoint, not touching
    assert {
        a for lo, hi in zip(starts, ends, strict=True) for a in range(lo, min(hi, 100))
    } == covered
    clear = {a for lo, hi in free(sorted([*blocked, SENTINEL])) for a in range(lo, hi)}
    assert clear == set(range(100)) - covered
