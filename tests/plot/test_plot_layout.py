"""Memory-map geometry: boxes, surroundings and the failed unit's band."""

from __future__ import annotations

from report_helpers import fragmented, over_capacity

from tilefit.engine.attempt import run_strategy
from tilefit.model.capture import Capture, Memory, Range, Request, Sequence
from tilefit.plot.layout import (
    MAX_BOX_LABELS,
    SIDE_HOLES,
    Box,
    MemoryMap,
    attempt_map,
    boxes_to_label,
    fits_in_box,
    placement_map,
    range_caption,
)


def test_a_placement_map_has_a_box_per_placed_request_in_capture_order() -> None:
    capture = fragmented()
    offsets = {"w.q": 16, "w.k": 40, "x": 128}
    layout = placement_map(capture, offsets, "t")
    assert [(b.id, b.index, b.offset, b.top) for b in layout.boxes] == [
        ("w.q", 3, 16, 40),
        ("w.k", 4, 40, 52),
        ("x", 6, 128, 136),
    ]
    assert layout.boxes[0] == Box(3, "w.q", 16, 24, 0, 4, "resident")
    assert layout.peak_address == 136
    assert layout.failure is None
    assert layout.classes == ("scratch", "activation", "output", "resident")


def test_surroundings_follow_the_memory() -> None:
    layout = placement_map(fragmented(), {}, "empty")
    assert layout.size == 168 and layout.horizon == 4
    assert layout.unavailable == ((0, 16), (152, 168))
    assert [r.name for r in layout.restricted] == ["host aperture"]
    assert range_caption(layout.restricted[0]) == "host aperture (scratch only)"
    assert layout.elements == (64, 128)
    assert layout.interleaved == (128, 168)
    assert layout.peak_address == 0


def test_no_interleaved_region_and_no_gap_when_the_ranges_cover_everything() -> None:
    capture = over_capacity()
    layout = placement_map(capture, {}, "t")
    assert layout.unavailable == ((0, 32),)
    assert layout.interleaved is None
    assert layout.elements == (64,)


def test_a_failed_attempt_carries_the_failed_unit_and_its_holes() -> None:
    capture = fragmented()
    attempt = run_strategy(capture, "alignment/first-fit")
    assert attempt.failure is not None
    layout = attempt_map(capture, attempt)
    band = layout.failure
    assert band is not None
    assert (band.id, band.label, band.size, band.cls, band.start, band.end) == (
        "big",
        "layer1/out_proj",
        40,
        "output",
        3,
        4,
    )
    assert band.holes == attempt.failure.holes
    assert band.largest_hole == max(e - s for s, e in band.holes) < band.size
    assert band.member_index == (2,)
    assert "fails on big" in layout.title and "alignment/first-fit" in layout.title
    assert {b.id for b in layout.boxes} == set(attempt.offsets)


def test_a_failed_sequence_lists_its_members_in_order() -> None:
    capture = Capture(
        "seq",
        2,
        Memory(64, (Range(0, 64),)),
        (Request("a", 40, 0, 2), Request("s1", 16, 0, 1, label="first"), Request("s2", 16, 0, 2)),
        sequences=(Sequence("s", ("s1", "s2")),),
    )
    band = attempt_map(capture, run_strategy(capture, "lifetime/first-fit")).failure
    assert band is not None
    assert (band.id, band.size, band.start, band.end) == ("s", 32, 0, 2)
    # A sequence is named by its id: its first member's label is not its own.
    assert band.label is None and band.caption == "sequence of 2"
    assert band.members == ("s1", "s2")
    assert band.member_sizes == (16, 16)
    assert band.member_index == (1, 2)
    assert band.holes == ((40, 64),)


def test_side_bars_put_the_unit_first_then_the_largest_holes() -> None:
    capture = fragmented()
    band = attempt_map(capture, run_strategy(capture, "lifetime/first-fit")).failure
    assert band is not None
    bars = band.side_bars()
    assert bars[0] == ("needed", 40)
    sizes = [size for _, size in bars[1:]]
    assert sizes == [e - s for s, e in band.holes[:SIDE_HOLES]]
    assert sizes == sorted(sizes, reverse=True)


def test_a_fitting_attempt_has_no_band() -> None:
    capture = fragmented()
    attempt = run_strategy(capture, "long-lived/first-fit")
    layout = attempt_map(capture, attempt, title="fix")
    assert layout.failure is None and layout.title == "fix"
    assert len(layout.boxes) == len(capture.requests)


def test_fits_in_box() -> None:
    assert fits_in_box(100, 20, "abc", 10)
    assert not fits_in_box(100, 12, "abc", 10)  # too low for the font
    assert not fits_in_box(20, 20, "abcdef", 10)  # too narrow for the text


def test_labels_go_to_the_largest_boxes_at_most_the_cap() -> None:
    boxes = tuple(Box(k, f"r{k}", k * 10, 10, 0, 1 + k % 7, "default") for k in range(1000))
    layout = MemoryMap("t", 8, 10_000, ("default",), boxes, (), (), (), None, None, 10_000)
    chosen = [x.box for x in boxes_to_label(layout, 8000, 100_000, 10)]  # all fit at this size
    assert len(chosen) == MAX_BOX_LABELS
    assert [b.index for b in chosen] == sorted(b.index for b in chosen)
    least = min((b.end - b.start) for b in chosen)
    assert all((b.end - b.start) <= least for b in boxes if b not in chosen)
    assert boxes_to_label(layout, 10, 10, 10) == ()  # nothing fits a tiny map
