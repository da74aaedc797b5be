"""The search's model: which blocks are pinned, and the bases each block may take."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tilefit.model.capture import Capture, Conflict, Memory, Range, Request, Sequence
from tilefit.search.blocks import Bases, build_model, intersect, subtract_all


def _capture(requests: tuple[Request, ...], **kw: object) -> Capture:
    memory = kw.pop("memory", Memory(16, (Range(0, 16),)))
    return Capture("m", 4, memory, requests, **kw)  # type: ignore[arg-type]


def test_interval_helpers() -> None:
    assert intersect(((0, 5), (8, 12)), ((3, 9),)) == ((3, 5), (8, 9))
    assert subtract_all(((0, 10),), [(3, 4)]) == ((0, 2), (5, 10))
    assert subtract_all(((0, 10),), [(5, 4)]) == ((0, 10),)
    assert subtract_all(((0, 4), (5, 9)), [(6, 6), (2, 3), (3, 5)]) == ((0, 1), (7, 9))


def _subtract(xs: Bases, lo: int, hi: int) -> Bases:
    """One cut, interval by interval: the reference (how the model cut bases before)."""
    if lo > hi:
        return xs
    out: list[tuple[int, int]] = []
    for a, b in xs:
        if b < lo or a > hi:
            out.append((a, b))
            continue
        if a < lo:
            out.append((a, lo - 1))
        if b > hi:
            out.append((hi + 1, b))
    return tuple(out)


@st.composite
def _bases(draw: st.DrawFn) -> tuple[tuple[int, int], ...]:
    """Ascending, disjoint closed intervals: single addresses and touching ones too, as
    bases may be."""
    points = sorted(draw(st.sets(st.integers(0, 60), max_size=10)))
    pairs = zip(points[::2], points[1::2], strict=False)
    return tuple((lo, hi - draw(st.integers(0, 1))) for lo, hi in pairs)


@settings(max_examples=300, deadline=None)
@given(_bases(), st.lists(st.tuples(st.integers(-5, 65), st.integers(-5, 65)), max_size=8))
def test_subtracting_all_cuts_at_once_is_subtracting_each(
    xs: tuple[tuple[int, int], ...], cuts: list[tuple[int, int]]
) -> None:
    """The same intervals, not only the same addresses, as one cut at a time; and
    those addresses are the ones no cut holds (empty cuts, lo > hi, hold none)."""
    one_by_one = xs
    for lo, hi in cuts:
        one_by_one = _subtract(one_by_one, lo, hi)
    assert subtract_all(xs, cuts) == one_by_one
    left = {x for a, b in xs for x in range(a, b + 1)}
    left -= {x for lo, hi in cuts for x in range(lo, hi + 1)}
    assert {x for a, b in subtract_all(xs, cuts) for x in range(a, b + 1)} == left


def test_bases_follow_the_allowed_set_and_the_top() -> None:
    memory = Memory(16, (Range(0, 4), Range(4, 8), Range(10, 16, classes=("scratch",))))
    model = build_model(
        _capture((Request("a", 3, 0, 1), Request("s", 3, 0, 1, cls="scratch")), memory=memory)
    )
    assert model.blocks[0].bases == ((0, 5),)  # spans the two adjacent ranges
    assert model.blocks[1].bases == ((0, 5), (10, 13))
    assert build_model(_capture((Request("a", 3, 0, 1),)), top=5).blocks[0].bases == ((0, 2),)


def test_pinned_blocks() -> None:
    rigid = (Request("a", 2, 0, 2), Request("b", 2, 0, 2), Request("c", 2, 1, 3))
    seqs = (Sequence("s", ("a", "b")),)
    assert build_model(_capture(rigid, sequences=seqs)).pinned == ()
    upper = (Conflict("b", "c"),)  # names the upper member: its side starts above the base
    assert build_model(_capture(rigid, sequences=seqs, conflicts=upper)).pinned == (0,)
    shaped = (Request("a", 2, 0, 1), Request("b", 2, 1, 2), Request("c", 2, 1, 3))
    assert build_model(_capture(shaped, sequences=seqs)).pinned == (0,)


def test_conflict_inside_one_sequence_only_removes_bases() -> None:
    memory = Memory(16, (Range(0, 16),), elements=(0, 4, 8, 12))
    reqs = (Request("a", 2, 0, 1), Request("b", 2, 0, 1))
    model = build_model(
        _capture(
            reqs,
            memory=memory,
            sequences=(Sequence("s", ("a", "b")),),
            conflicts=(Conflict("a", "b"),),
        )
    )
    assert model.edges == ()
    # a = [base, base+2), b = [base+2, base+4): they part only when an element starts at base+2.
    assert model.blocks[0].bases == ((2, 2), (6, 6), (10, 10))
