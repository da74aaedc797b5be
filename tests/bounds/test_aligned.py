"""The aligned lower bound (tilefit.bounds.aligned): sound against brute force, and tight
where the padding is forced."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
from hypothesis import strategies as st
from search_brute import brute_force
from search_captures import count_answers, tiny_captures

from tilefit.bounds.aligned import _cover_max, aligned_bound, paddings, stretches
from tilefit.bounds.live import live_peak, request_spans
from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.model.deadline import Deadline
from tilefit.search.problem import Problem

EXAMPLES = 300


def _cut_at(capture: Capture, top: int) -> Capture:
    """Every range cut at ``top``: the storage a memory top of ``top`` leaves."""
    ranges = tuple(replace(r, end=min(r.end, top)) for r in capture.memory.ranges if r.start < top)
    if not ranges:
        return replace(capture, memory=replace(capture.memory, ranges=(Range(0, 0),)))
    return replace(capture, memory=replace(capture.memory, ranges=ranges))


def _lowest_top(capture: Capture) -> int | None:
    """The least memory top of any valid placement, by exhaustive search (None: none)."""
    if brute_force(capture) is None:
        return None
    return next(t for t in range(1, capture.memory.size + 1) if brute_force(_cut_at(capture, t)))


@st.composite
def aligned_captures(draw: st.DrawFn) -> Capture:
    """Tiny captures where alignment matters: mixed alignments (3 and 6 too, so that
    gcds are not just the smaller one), sizes off their alignment, ranges with gaps and
    ranges that start off the alignment."""
    size = draw(st.integers(8, 22))
    points = sorted(draw(st.sets(st.integers(1, size - 1), max_size=3)))
    bounds = [0, *points, size]
    ranges = [
        Range(lo, hi)
        for lo, hi in itertools.pairwise(bounds)
        if draw(st.sampled_from([True, True, False]))
    ] or [Range(0, size)]
    n = draw(st.integers(1, 4))
    requests = []
    for k in range(n):
        start = draw(st.integers(0, 2))
        requests.append(
            Request(
                id=f"r{k}",
                size=draw(st.integers(1, 7)),
                start=start,
                end=draw(st.integers(start + 1, 3)),
                alignment=draw(st.sampled_from([1, 2, 3, 4, 4, 6, 8, 8])),
            )
        )
    return Capture("aligned", 3, Memory(size, tuple(ranges)), tuple(requests))


def _sound(capture: Capture) -> bool:
    """The bound holds against the lowest top found by exhaustive search; True when it
    says more than the live bytes (so that the test counts the cases where it bites)."""
    bound = aligned_bound(capture)
    peak, _ = live_peak(request_spans(capture.requests))
    assert bound.span >= peak and bound.need >= peak
    lowest = _lowest_top(capture)
    if lowest is None:
        return False
    assert bound.deficit == 0, (bound, lowest)
    assert bound.top <= lowest, (bound, lowest)
    return bound.span > peak


def test_never_above_the_lowest_top_with_alignments() -> None:
    bites, ran = count_answers(st.tuples(aligned_captures()), EXAMPLES, _sound)
    assert ran == EXAMPLES
    assert bites >= 20  # the padding counts in many of them


def test_never_above_the_lowest_top_with_every_constraint_kind() -> None:
    # The search tests' tiny captures: sequences, conflicts, classes, interleaving.
    _, ran = count_answers(st.tuples(tiny_captures(max_requests=3)), 60, _sound)
    assert ran == 60


def _deficit_proves(capture: Capture) -> bool:
    """An aligned deficit proves that no placement exists (True when there is one)."""
    bound = aligned_bound(capture)
    if bound.deficit == 0:
        return False
    assert brute_force(capture) is None, bound
    return True


def test_a_deficit_means_no_placement() -> None:
    proved, ran = count_answers(st.tuples(aligned_captures()), EXAMPLES, _deficit_proves)
    assert ran == EXAMPLES and proved >= 5


def _capture(sizes: list[int], alignments: list[int], memory: int = 1024) -> Capture:
    requests = tuple(
        Request(f"r{k}", s, 0, 1, a) for k, (s, a) in enumerate(zip(sizes, alignments, strict=True))
    )
    return Capture("c", 1, Memory(memory, (Range(0, memory),)), requests)


def test_one_alignment_is_the_rounded_sizes_less_the_top_ones_rounding() -> None:
    sizes = [100, 64, 1, 130]
    bound = aligned_bound(_capture(sizes, [64] * 4))
    rounded = [-(-s // 64) * 64 for s in sizes]
    expected = sum(rounded) - max(r - s for r, s in zip(rounded, sizes, strict=True))
    assert bound.span == bound.top == bound.need == expected == 128 + 64 + 192 + 1
    assert bound.live == sum(sizes) and bound.padding == expected - sum(sizes)
    assert paddings(_capture(sizes, [64] * 4)) == [28, 0, 63, 62]


def test_a_neighbour_of_alignment_one_waives_the_padding() -> None:
    # 100 B at 64 could sit right below the 1-aligned request: nothing forced for it.
    capture = _capture([100, 100, 7], [64, 64, 1])
    assert paddings(capture) == [0, 0, 0]
    assert aligned_bound(capture).span == 207


def test_mixed_alignments_use_the_gcd_with_each_neighbour() -> None:
    # 10 B at 6 beside a 4-aligned request: gcd 2, 10 is even, no padding; 5 B: 1.
    assert paddings(_capture([10, 8], [6, 4])) == [0, 0]
    assert paddings(_capture([5, 8], [6, 4])) == [1, 0]
    # Co-live with requests of alignment 8 and 2: the cheaper neighbour counts.
    assert paddings(_capture([3, 8, 2], [8, 8, 2])) == [1, 0, 0]


def test_only_co_live_neighbours_count() -> None:
    requests = (
        Request("a", 100, 0, 2, 64),
        Request("b", 100, 0, 2, 64),
        Request("one", 7, 2, 3, 1),  # alignment 1, but never beside a or b
    )
    capture = Capture("c", 3, Memory(1024, (Range(0, 1024),)), requests)
    assert paddings(capture) == [28, 28, 0]
    assert aligned_bound(capture).span == 228


def test_stretches_split_by_a_reserved_gap() -> None:
    # Two 60 B requests at 64 and two stretches: each may sit at the top of its own
    # stretch, so no padding need lie in the storage, but they still span 124 B.
    requests = (Request("a", 60, 0, 1, 64), Request("b", 60, 0, 1, 64))
    memory = Memory(256, (Range(0, 60), Range(64, 128), Range(128, 200)))
    capture = Capture("c", 1, memory, requests)
    assert stretches(capture) == [(0, 60), (64, 200)]
    bound = aligned_bound(capture)
    assert bound.span == 124 and bound.stretches == 2 and bound.need == 120
    assert bound.top == 124  # a at 0, b at 64: the lowest top


def test_the_top_starts_at_the_lowest_range() -> None:
    requests = (Request("a", 60, 0, 1, 64), Request("b", 60, 0, 1, 64))
    capture = Capture("c", 1, Memory(512, (Range(128, 512),)), requests)
    assert aligned_bound(capture).top == 128 + 124


def test_nothing_live_and_no_requests() -> None:
    empty = Capture("c", 4, Memory(64, (Range(16, 64),)), ())
    bound = aligned_bound(empty)
    assert (bound.span, bound.need, bound.top, bound.deficit) == (0, 0, 16, 0)


def test_cover_max_matches_a_plain_scan() -> None:
    rng = np.random.default_rng(0)
    for rows in (1, 2, 3, 7, 64, 100):
        n = int(rng.integers(1, 40))
        lo = rng.integers(0, rows, n)
        hi = np.minimum(rows, lo + rng.integers(1, rows + 1, n))
        values = rng.integers(0, 50, n)
        expected = [
            max([int(v) for a, b, v in zip(lo, hi, values, strict=True) if a <= r < b] or [0])
            for r in range(rows)
        ]
        assert _cover_max(lo, hi, values, rows).tolist() == expected


def test_huge_sizes_stay_exact() -> None:
    size = 2**61 + 3
    capture = _capture([size, size], [8, 8], memory=2**62 + 2**61)
    bound = aligned_bound(capture)
    assert bound.span == 2 * size + (-size % 8)


# --------------------------------------------------------------------------- where it decides


def _padded(memory: int, heap: int | None = None) -> Capture:
    """Three co-live 100 B requests at 64: 300 B live, 356 B spanned (128 + 128 + 100)."""
    from tilefit.model.capture import Origin

    requests = tuple(Request(f"r{k}", 100, 0, 2, 64) for k in range(3))
    origin = None if heap is None else Origin("XLA", heap)
    return Capture("padded", 2, Memory(memory, (Range(0, memory),)), requests, origin=origin)


def test_bound_reports_both_and_keeps_the_live_bound() -> None:
    from tilefit.bounds.deficit import bound
    from tilefit.output.jsonout import bound_json

    report = bound(_padded(340))
    out = bound_json(report)
    assert (out["lower_bound"], out["deficit"]) == (300, 0)  # the contract's meaning
    assert (out["aligned_lower_bound"], out["aligned_deficit"]) == (356, 16)
    assert out["aligned"] == {
        "step": 0,
        "live": 300,
        "padding": 56,
        "stretches": 1,
        "need": 356,
        "top": 356,
    }
    assert report.proves_deficit


def test_diagnose_says_capacity_where_only_the_padding_shows_it() -> None:
    from tilefit.cli.diagnose import diagnosis_lines
    from tilefit.plot.caption import verdict_caption
    from tilefit.verdicts.diagnose import diagnose

    d = diagnose(_padded(340), search=False)
    assert d.verdict == "capacity" and d.bound.deficit == 0 and d.bound.aligned_deficit == 16
    text = "\n".join(diagnosis_lines(d))
    assert "need 356 B of storage: 16 B over" in text
    assert "0 overloaded windows" not in text
    assert (
        verdict_caption(d).text
        == "CAPACITY: 16 B over with alignment padding by the aligned bound, 0 overloaded windows"
    )
    # With room for the padding, the same requests fit.
    assert diagnose(_padded(356), search=False).verdict == "fits"


def test_heap_at_the_aligned_bound_is_optimal() -> None:
    from tilefit.verdicts.heap import heap_standing

    standing = heap_standing(_padded(356, heap=356), 300, None)
    assert standing is not None and standing.optimal
    assert standing.aligned_top == 356
    assert standing.text.startswith("XLA's heap is optimal (equals the aligned lower bound, 356 B")
    above = heap_standing(_padded(420, heap=420), 300, 400)
    assert above is not None and not above.optimal
    assert "20 B (5.0%) above the best placement found" in above.text
    unbeaten = heap_standing(_padded(420, heap=420), 300, None)
    assert unbeaten is not None
    assert unbeaten.text == (
        "XLA's heap is 420 B: 64 B above the aligned lower bound of 356 B, 120 B above the live one"
    )


def test_minimize_proves_a_top_at_the_aligned_bound() -> None:
    from tilefit.search import SOLVED, minimize

    result = minimize(Problem(_padded(1024)), Deadline.start(30))
    assert result.status == SOLVED
    assert result.least is not None
    assert (result.least.lower_bound, result.least.best_top, result.least.optimal) == (
        356,
        356,
        True,
    )
