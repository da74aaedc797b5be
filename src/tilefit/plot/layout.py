"""The geometry of a memory map, shared by the matplotlib and the SVG drawings.

Steps run across and addresses up: each placed request is a box spanning its
lifetime and its bytes (two boxes where a cyclic capture's lifetime wraps: one
up to the last step, one from step 0). Around the boxes: the address space outside every
range (unavailable), ranges open only to some classes (the host aperture),
memory-element boundaries and the interleaved region. For a failed attempt,
the failed unit's lifetime band and the holes it met; for a tile over
capacity, every overloaded window.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tilefit.bounds.overload import Window
from tilefit.engine.attempt import Attempt
from tilefit.model.arcs import request_pieces
from tilefit.model.capture import Capture, Interval, Range, Request
from tilefit.model.words import counted
from tilefit.plot.windows import WindowMark, window_marks

SIDE_HOLES = 5  # holes drawn beside the failed unit, largest first
MIN_HOLE_PX = 3.0  # a hole is drawn at least this tall, so that a small one shows
LINE_HEIGHT = 1.3  # a label needs this many times its font size of height
MIN_LABEL_PX = 6.0  # a label shrunk to fit its box is never smaller than this
MAX_BOX_LABELS = 300  # beyond this many, only the largest boxes that fit a label get one


@dataclass(frozen=True, slots=True)
class Box:
    """A placed request: steps [start, end) by addresses [offset, offset + size)."""

    index: int  # the request's position in capture order
    id: str
    offset: int
    size: int
    start: int
    end: int
    cls: str
    name: str | None = None  # the request's short name (``Request.name``), drawn before the id
    seam: int | None = None  # a piece of a wrapping lifetime: the step where it meets the other

    @property
    def top(self) -> int:
        return self.offset + self.size


def seams(r: Request, horizon: int, lo: int, hi: int) -> int | None:
    """Where a piece ``[lo, hi)`` of a lifetime that wraps round a cyclic capture's circle
    goes on across the seam (``hi`` = the horizon, or ``lo`` = 0), drawn as a dashed edge
    so that its two boxes read as one lifetime; None for a lifetime that does not wrap."""
    if not r.wraps:
        return None
    return hi if hi == horizon else lo if lo == 0 else None


@dataclass(frozen=True, slots=True)
class FailedBand:
    """The unit an attempt could not place, over its lifetime, and the holes it met."""

    id: str
    label: str | None  # a request's label; None for a sequence, which is named by its id
    size: int
    alignment: int
    cls: str
    start: int
    end: int
    placed_before: int  # units placed before it
    members: tuple[str, ...]
    member_index: tuple[int, ...]  # each member's position in capture order
    member_sizes: tuple[int, ...]
    holes: tuple[Interval, ...]  # largest first
    name: str | None = None  # a request's short name (``Request.name``)
    pieces: tuple[Interval, ...] = ()  # on a circle, where a member wraps: its runs of steps

    @property
    def spans(self) -> tuple[Interval, ...]:
        """The runs of steps the band covers: its lifetime, or on a cyclic capture's
        circle, where a member wraps, the pieces either side of the cut."""
        return self.pieces or ((self.start, self.end),)

    @property
    def is_sequence(self) -> bool:
        return len(self.members) > 1 or self.members[0] != self.id

    @property
    def caption(self) -> str | None:
        """What is said under the unit's id: ``sequence of 3``, or a request's label."""
        return f"sequence of {len(self.members)}" if self.is_sequence else self.label

    @property
    def largest_hole(self) -> int:
        return max((end - start for start, end in self.holes), default=0)

    def side_bars(self) -> tuple[tuple[str, int], ...]:
        """What is drawn beside the map, to one scale: the unit, then its largest holes."""
        holes = self.holes[:SIDE_HOLES]
        return (
            ("needed", self.size),
            *((f"hole {k + 1}", e - s) for k, (s, e) in enumerate(holes)),
        )


@dataclass(frozen=True, slots=True)
class BoxLabel:
    """What a map writes on a box: the text, and whether it runs up the box (a box too
    narrow for it across but tall enough along)."""

    box: Box
    text: str
    upright: bool = False


@dataclass(frozen=True)
class MemoryMap:
    title: str
    horizon: int
    size: int  # the address space is [0, size)
    classes: tuple[str, ...]  # every class of the capture, in order of first appearance
    boxes: tuple[Box, ...]  # in capture order
    unavailable: tuple[Interval, ...]  # address spans outside every range
    restricted: tuple[Range, ...]  # ranges open only to some classes (a host aperture)
    elements: tuple[int, ...]  # element boundaries inside (0, size)
    interleaved: Interval | None  # the interleaved region, when there is one
    failure: FailedBand | None
    peak_address: int  # the highest address occupied (exclusive)
    windows: tuple[WindowMark, ...] = ()  # the tile's overloaded windows, in time order


def placement_map(
    capture: Capture, offsets: Mapping[str, int], title: str, windows: Sequence[Window] = ()
) -> MemoryMap:
    """The map of the requests that have an offset (all of them, for a placement).

    ``windows``, the tile's overloaded windows (``BoundReport.windows``), are marked on it.
    """
    return _memory_map(capture, offsets, title, None, windows)


def attempt_map(
    capture: Capture, attempt: Attempt, title: str | None = None, windows: Sequence[Window] = ()
) -> MemoryMap:
    """The map of a strategy's attempt; when it failed, with the failed unit's band."""
    failure = attempt.failure
    band = None
    if failure is not None:
        unit = failure.unit
        band = FailedBand(
            id=unit.id,
            label=None if unit.is_sequence else unit.members[0].label,
            size=unit.size,
            alignment=unit.alignment,
            cls=unit.cls,
            start=unit.start,
            end=unit.end,
            placed_before=failure.placed_before,
            members=tuple(m.id for m in unit.members),
            member_index=tuple(_index(capture)[m.id] for m in unit.members),
            member_sizes=tuple(m.size for m in unit.members),
            holes=failure.holes,
            name=None if unit.is_sequence else unit.members[0].name,
            pieces=_band_pieces(unit.members, capture.horizon),
        )
    name = attempt.strategy.name
    if title is None:
        title = f"{capture.name}: {name}, " + (
            "fits"
            if band is None
            else f"fails on {band.id} after {counted(band.placed_before, 'unit')}"
        )
    return _memory_map(capture, attempt.offsets, title, band, windows)


def _memory_map(
    capture: Capture,
    offsets: Mapping[str, int],
    title: str,
    band: FailedBand | None,
    windows: Sequence[Window],
) -> MemoryMap:
    memory = capture.memory
    # A lifetime that wraps around a cyclic capture's circle is drawn as its two pieces.
    boxes = tuple(
        Box(
            k, r.id, offsets[r.id], r.size, lo, hi, r.cls, r.name, seams(r, capture.horizon, lo, hi)
        )
        for k, r in enumerate(capture.requests)
        if r.id in offsets
        for lo, hi in request_pieces(r, capture.horizon)
    )
    interleaved = memory.interleaved_start
    return MemoryMap(
        title=title,
        horizon=capture.horizon,
        size=memory.size,
        classes=tuple(dict.fromkeys(r.cls for r in capture.requests)),
        boxes=boxes,
        unavailable=_gaps(memory.size, memory.ranges),
        restricted=tuple(r for r in memory.ranges if r.classes is not None),
        elements=tuple(e for e in memory.elements if 0 < e < memory.size),
        interleaved=(interleaved, memory.size) if interleaved < memory.size else None,
        failure=band,
        peak_address=max((b.top for b in boxes), default=0),
        windows=window_marks(windows),
    )


def _band_pieces(members: tuple[Request, ...], horizon: int) -> tuple[Interval, ...]:
    """The steps of a failed unit one of whose members wraps, as disjoint runs (none
    where no member wraps: the band is then the unit's lifetime)."""
    if not any(m.wraps for m in members):
        return ()
    runs: list[Interval] = []
    for lo, hi in sorted(p for m in members for p in request_pieces(m, horizon)):
        if runs and lo <= runs[-1][1]:
            runs[-1] = (runs[-1][0], max(hi, runs[-1][1]))
        else:
            runs.append((lo, hi))
    return tuple(runs)


def _index(capture: Capture) -> dict[str, int]:
    return {r.id: k for k, r in enumerate(capture.requests)}


def _gaps(size: int, ranges: tuple[Range, ...]) -> tuple[Interval, ...]:
    gaps: list[Interval] = []
    cursor = 0
    for r in sorted(ranges, key=lambda r: r.start):
        if r.start > cursor:
            gaps.append((cursor, r.start))
        cursor = max(cursor, r.end)
    if cursor < size:
        gaps.append((cursor, size))
    return tuple(gaps)


def range_caption(r: Range) -> str:
    """How a restricted range is labelled: its name and who may use it."""
    name = r.name or f"[{r.start}, {r.end})"
    return f"{name} ({', '.join(r.classes or ())} only)"


def fits_in_box(width_px: float, height_px: float, text: str, font_px: float) -> bool:
    """Whether a one-line ``text`` of ``font_px`` pixels fits inside a box of that size."""
    return height_px >= font_px * LINE_HEIGHT and width_px >= len(text) * font_px * 0.62 + 4


def label_font(width_px: float, height_px: float, text: str, font_px: float) -> float | None:
    """The font size, ``font_px`` or smaller down to MIN_LABEL_PX, at which a one-line
    ``text`` fits inside a box of that size; None when it fits at none (no label)."""
    font = min(font_px, math.floor(height_px / LINE_HEIGHT * 10) / 10)
    if font < MIN_LABEL_PX or not fits_in_box(width_px, height_px, text, font):
        return None
    return font


def box_label(box: Box, width_px: float, height_px: float, font: float) -> BoxLabel | None:
    """The first that fits a box of that size: its name across, its name up the box, its
    id across (None: nothing fits). A name says more than an id such as TFLM's ``0:45``;
    the id still names a box too small for the name."""
    if box.name:
        if fits_in_box(width_px, height_px, box.name, font):
            return BoxLabel(box, box.name)
        if fits_in_box(height_px, width_px, box.name, font):
            return BoxLabel(box, box.name, upright=True)
    return BoxLabel(box, box.id) if fits_in_box(width_px, height_px, box.id, font) else None


def boxes_to_label(
    layout: MemoryMap, width: float, height: float, font: float
) -> tuple[BoxLabel, ...]:
    """The boxes with a label that fits inside them when the map is ``width`` x ``height``
    pixels (``box_label``).

    At most MAX_BOX_LABELS of them, the largest first, returned in capture order.
    """
    fitting = [
        label
        for b in layout.boxes
        if (
            label := box_label(
                b, (b.end - b.start) / layout.horizon * width, b.size / layout.size * height, font
            )
        )
        is not None
    ]
    chosen = sorted(fitting, key=lambda x: (-(x.box.end - x.box.start) * x.box.size, x.box.index))
    return tuple(sorted(chosen[:MAX_BOX_LABELS], key=lambda x: x.box.index))
