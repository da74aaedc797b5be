"""A memory map as inline SVG, written here rather than by matplotlib.

Every request box carries its capture index (``data-k``) and every hole its
rank (``data-h``); the page's one script turns those into tooltips and
highlights by event delegation, so the SVG stays plain and compact: a
20,000-request map is one ``<rect>`` of about 70 bytes per request.
"""

from __future__ import annotations

from tilefit.model.words import wrap_words
from tilefit.plot.colors import LIGHT_TEXT, class_colors, label_color
from tilefit.plot.layout import (
    MIN_HOLE_PX,
    FailedBand,
    MemoryMap,
    boxes_to_label,
    label_font,
    range_caption,
)
from tilefit.plot.ticks import address_ticks, byte_label
from tilefit.report.svg import PLOT_LEFT, PLOT_RIGHT, WIDTH, Frame, axes, esc, num
from tilefit.report.svgwindows import ROW, window_marks_svg

HEIGHT = 640  # and ROW more above the frame when the tile has overloaded windows
SIDE_LEFT = 1080
SIDE_RIGHT = 1190
SIDE_CHARS = 17  # characters of the side panel's 11-pixel text across its width
FONT = 9.0  # view units; the page shows a map about one unit per pixel
MIN_BOX = 0.3  # boxes thinner than this are drawn this thick, so they still show
EDGE_FROM = 4.0  # boxes taller than this get a white edge; thinner ones would wash out
HOLE_LABELS = 12


def map_svg(
    key: str, layout: MemoryMap, class_index: dict[str, int], peak_step: int | None = None
) -> str:
    """The map named ``key`` (the page's data for it is under that key).

    ``peak_step``, when given, is marked across the map, so that the map and the
    profile below it point at the same step. The tile's overloaded windows are
    hatched, their excess written above the map.
    """
    row = ROW if layout.windows else 0.0
    frame = Frame(PLOT_LEFT, PLOT_RIGHT, 14 + row, 590 + row, layout.horizon, layout.size)
    out = [
        f'<svg class="map" data-map="{key}" viewBox="0 0 {WIDTH} {num(HEIGHT + row)}" '
        f'role="img" aria-label="{esc(layout.title)}">'
    ]
    out += _surroundings(frame, layout)
    out.append("<g>")
    out += box_rects(frame, layout, class_index)
    out.append("</g>")
    out += _marks(frame, layout)
    # The page colours class k's boxes with class_colors(the classes in index order)[k]:
    # a label is light on a box dark enough for light text to read (class "bl lt").
    fills = class_colors(sorted(class_index, key=class_index.__getitem__))
    out += box_labels(frame, layout, fills)
    if peak_step is not None:
        at = num(frame.x(peak_step))
        out.append(
            f'<path class="peak" d="M{at} {num(frame.top)}V{num(frame.bottom)}"/>'
            f'<text class="peakt" x="{at}" y="{num(frame.top - 3)}">peak</text>'
        )
    if layout.failure is not None:
        out += _band(frame, layout.failure)
        out += _side(layout.failure, row)
    out += window_marks_svg(frame, layout.windows, frame.top - 16)
    out += axes(frame, address_ticks(layout.size), "address", layout.size)
    out.append("</svg>")
    return "\n".join(out)


def box_rects(frame: Frame, layout: MemoryMap, class_index: dict[str, int]) -> list[str]:
    """Each box as a rectangle of its class, keyed by its capture index for the page's
    tooltips; a white edge only on boxes tall enough not to wash out under it."""
    out = []
    for b in layout.boxes:
        x = frame.x(b.start)
        h = max(frame.height(b.size), MIN_BOX)
        edge = " e" if h > EDGE_FROM else ""
        out.append(
            f'<rect class="k{class_index[b.cls]}{edge}" data-k="{b.index}" x="{num(x)}" '
            f'y="{num(frame.y(b.top))}" width="{num(frame.x(b.end) - x)}" height="{num(h)}"/>'
        )
        if b.seam is not None:  # a lifetime that wraps: its edge at the circle's seam dashed
            seam, top = num(frame.x(b.seam)), frame.y(b.top)
            out.append(f'<path class="wr" d="M{seam} {num(top)}V{num(top + h)}"/>')
    return out


def box_labels(frame: Frame, layout: MemoryMap, fills: dict[str, str]) -> list[str]:
    """The names written on the boxes wide or tall enough for them (up the box when only
    its height holds the name), light on the boxes dark enough for light text."""
    out = []
    for label in boxes_to_label(layout, frame.width, frame.bottom - frame.top, FONT):
        b = label.box
        light = " lt" if label_color(fills[b.cls]) == LIGHT_TEXT else ""
        cx, cy = num(frame.x((b.start + b.end) / 2)), num(frame.y(b.offset + b.size / 2))
        turn = f' transform="rotate(-90 {cx} {cy})"' if label.upright else ""
        out.append(f'<text class="bl{light}" x="{cx}" y="{cy}"{turn}>{esc(label.text)}</text>')
    return out


def _surroundings(frame: Frame, layout: MemoryMap) -> list[str]:
    """Unavailable space and ranges open only to some classes, drawn under the boxes."""
    left, width = num(frame.left), num(frame.width)
    out: list[str] = []
    for lo, hi in layout.unavailable:
        out.append(
            f'<rect class="na" x="{left}" y="{num(frame.y(hi))}" width="{width}" '
            f'height="{num(frame.height(hi - lo))}"><title>unavailable [{lo}, {hi})</title></rect>'
        )
    for r in layout.restricted:
        out.append(
            f'<rect class="ap" x="{left}" y="{num(frame.y(r.end))}" width="{width}" '
            f'height="{num(frame.height(r.size))}"/>'
        )
    return out


def _marks(frame: Frame, layout: MemoryMap) -> list[str]:
    """Element boundaries, the interleaved region and range captions, drawn over the boxes."""
    left, width = num(frame.left), num(frame.width)
    out: list[str] = []
    if layout.elements:
        path = "".join(f"M{left} {num(frame.y(e))}h{width}" for e in layout.elements)
        out.append(f'<path class="el" d="{path}"/>')
    for r in layout.restricted:
        out.append(
            f'<text class="apl" x="{num(frame.left + 8)}" y="{num(frame.y(r.end) + 10)}">'
            f"{esc(range_caption(r))}</text>"
        )
    if layout.interleaved is not None:
        lo, hi = layout.interleaved
        out.append(
            f'<rect class="il" x="{left}" y="{num(frame.y(hi))}" width="5" '
            f'height="{num(frame.height(hi - lo))}"/>'
            f'<text class="ill" x="{num(frame.left + 8)}" y="{num(frame.y(lo) - 4)}">'
            f"interleaved from {esc(byte_label(lo, layout.size))}</text>"
        )
    return out


def _band(frame: Frame, band: FailedBand) -> list[str]:
    """The failed unit's lifetime band and the holes it met, the largest labelled (once
    per run of steps: two where it wraps around a cyclic capture's circle)."""
    return [line for start, end in band.spans for line in _band_span(frame, band, start, end)]


def _band_span(frame: Frame, band: FailedBand, start: int, end: int) -> list[str]:
    x0, x1 = frame.x(start), frame.x(end)
    out = [
        f'<rect class="band" x="{num(x0)}" y="{num(frame.top)}" width="{num(x1 - x0)}" '
        f'height="{num(frame.bottom - frame.top)}"/>',
        f'<path class="bandl" d="M{num(x0)} {num(frame.top)}V{num(frame.bottom)}'
        f'M{num(x1)} {num(frame.top)}V{num(frame.bottom)}"/>',
    ]
    for j, (lo, hi) in enumerate(band.holes):
        h = max(frame.height(hi - lo), MIN_HOLE_PX)
        y = frame.y(hi) - (h - frame.height(hi - lo)) / 2
        out.append(
            f'<rect class="hole" data-h="{j}" x="{num(x0)}" y="{num(y)}" '
            f'width="{num(x1 - x0)}" height="{num(h)}"/>'
        )
    for lo, hi in band.holes[:HOLE_LABELS]:
        # A label fits its strip, shrunk if need be; a strip too thin for one has none
        # (its size is in the tooltip and beside the map), so none spills onto a neighbour.
        text = f"{hi - lo:,} B"
        font = label_font(x1 - x0, max(frame.height(hi - lo), MIN_HOLE_PX), text, FONT)
        if font is None:
            continue
        size = "" if font == FONT else f' style="font-size:{num(font)}px"'
        out.append(
            f'<text class="hl"{size} x="{num((x0 + x1) / 2)}" '
            f'y="{num(frame.y((lo + hi) / 2))}">{text}</text>'
        )
    return out


def _side(band: FailedBand, row: float) -> list[str]:
    """The failed unit beside its largest holes, all to one scale, from 0 up."""
    bars = band.side_bars()
    scale = max(size for _, size in bars) * 1.15
    slot = (SIDE_RIGHT - SIDE_LEFT) / len(bars)
    width = slot * 0.75
    middle = (SIDE_LEFT + SIDE_RIGHT) / 2
    out = [f'<text class="st" x="{middle}" y="{num(20 + row)}">failed unit vs. holes</text>']
    # The id and name in lines between their words: a long one is never cut at the edge.
    names = wrap_words(band.id, SIDE_CHARS, 2)
    for k, line in enumerate(names):
        out.append(f'<text class="sf" x="{middle}" y="{num(38 + row + 14 * k)}">{esc(line)}</text>')
    lines = [] if band.name is None else wrap_words(band.name, SIDE_CHARS + 3, 2)
    lines += [f"needs {band.size:,} B", f"align {band.alignment}", "largest hole"]
    lines.append(f"{band.largest_hole:,} B")
    if band.is_sequence:  # a sequence is named by its id, never by its first member
        lines.insert(0, f"sequence of {len(band.members)}")
    first = 56 + row + 14 * (len(names) - 1)
    for k, line in enumerate(lines):
        out.append(f'<text class="ss" x="{middle}" y="{num(first + 16 * k)}">{esc(line)}</text>')
    top, bottom = max(150.0 + row, first + 16 * len(lines) + 8), 560.0 + row
    cursor = 0
    for index, size in zip(band.member_index, band.member_sizes, strict=True):
        y = bottom - (cursor + size) / scale * (bottom - top)
        out.append(
            f'<rect class="need" data-k="{index}" x="{num(SIDE_LEFT + (slot - width) / 2)}" '
            f'y="{num(y)}" width="{num(width)}" height="{num(size / scale * (bottom - top))}"/>'
        )
        cursor += size
    for j, (_, size) in enumerate(bars[1:]):
        x = SIDE_LEFT + slot * (j + 1) + (slot - width) / 2
        h = max(size / scale * (bottom - top), 1.0)
        out.append(
            f'<rect class="hole" data-h="{j}" x="{num(x)}" y="{num(bottom - h)}" '
            f'width="{num(width)}" height="{num(h)}"/>'
        )
    for k, (name, _) in enumerate(bars):
        x = SIDE_LEFT + slot * (k + 0.5)
        label = "need" if k == 0 else name.removeprefix("hole ")
        out.append(f'<text class="tx" x="{num(x)}" y="{num(bottom + 14)}">{label}</text>')
    out.append(
        f'<path class="tick" d="M{SIDE_LEFT} {num(bottom)}H{SIDE_RIGHT}"/>'
        f'<text class="ss" x="{middle}" y="{num(bottom + 30)}">holes, largest first</text>'
    )
    return out
