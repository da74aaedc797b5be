"""The report's own SVG: boxes where the geometry says, profile columns that keep the peak."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from itertools import pairwise

from report_helpers import fragmented

from tilefit.engine.attempt import run_strategy
from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.plot.colors import DARK_TEXT, LIGHT_TEXT, class_colors, contrast
from tilefit.plot.layout import attempt_map
from tilefit.plot.series import profile_series
from tilefit.report.html import LABEL_CSS
from tilefit.report.svg import Frame, num
from tilefit.report.svgbracket import bracket_html
from tilefit.report.svgmap import map_svg
from tilefit.report.svgprofile import columns, profile_frame, profile_svg
from tilefit.search.bracket import Bracket

CLASSES = {"scratch": 0, "activation": 1, "output": 2, "resident": 3}


def test_numbers_are_short() -> None:
    assert [num(v) for v in (3.0, 3.04, 3.06, -0.04, 12.25)] == ["3", "3", "3.1", "-0", "12.2"]


def test_every_box_sits_where_its_request_is() -> None:
    capture = fragmented()
    attempt = run_strategy(capture, "alignment/first-fit")
    layout = attempt_map(capture, attempt)
    svg = map_svg("m0", layout, CLASSES)
    root = ET.fromstring(svg)  # well-formed XML
    assert root.get("data-map") == "m0"
    frame = Frame(84, 1030, 14, 590, capture.horizon, layout.size)
    boxes = {int(r.get("data-k", -1)): r for r in root.iter() if r.get("class", "").startswith("k")}
    assert set(boxes) == {b.index for b in layout.boxes}
    for b in layout.boxes:
        rect = boxes[b.index]
        assert float(rect.get("x", "nan")) == round(frame.x(b.start), 1)
        assert abs(float(rect.get("y", "nan")) - frame.y(b.top)) <= 0.05
        assert rect.get("class", "").split()[0] == f"k{CLASSES[b.cls]}"
    # The failed unit's bar beside the map is hoverable as its request too.
    need = [r for r in root.iter() if r.get("class") == "need"]
    assert [int(r.get("data-k", -1)) for r in need] == [2]
    assert "failed unit vs. holes" in svg and "needs 40 B" in svg


def test_a_fitting_map_has_no_band_and_no_holes() -> None:
    capture = fragmented()
    svg = map_svg(
        "m1", attempt_map(capture, run_strategy(capture, "long-lived/first-fit")), CLASSES
    )
    assert 'class="band"' not in svg and 'class="hole"' not in svg and "need" not in svg
    assert "host aperture (scratch only)" in svg and "interleaved from 128" in svg
    assert 'class="peak"' not in svg
    layout = attempt_map(capture, run_strategy(capture, "long-lived/first-fit"))
    marked = map_svg("m1", layout, CLASSES, peak_step=3)
    x = num(Frame(84, 1030, 14, 590, capture.horizon, layout.size).x(3))
    assert f'<path class="peak" d="M{x} 14V590"/>' in marked


def test_short_profiles_keep_every_run() -> None:
    series = profile_series(fragmented())
    cols = columns(series, profile_frame(series))
    assert [(c.start, c.end) for c in cols] == list(pairwise(series.steps))


def test_long_profiles_are_gathered_into_columns_that_keep_the_peak() -> None:
    horizon = 9000
    requests = tuple(Request(f"r{k}", 1 + k % 97, k, k + 1 + k % 3) for k in range(horizon - 3))
    capture = Capture("long", horizon, Memory(10_000, (Range(0, 10_000),)), requests)
    series = profile_series(capture)
    assert len(series.live) > 2000
    frame = profile_frame(series)
    cols = columns(series, frame)
    assert len(cols) <= frame.width
    assert cols[0].start == 0 and cols[-1].end == horizon
    assert all(a.end == b.start for a, b in pairwise(cols))
    assert max(sum(c.live) for c in cols) == series.lower_bound
    svg = profile_svg(series, {"default": 0})
    ET.fromstring(svg)
    assert len(svg) < 100_000
    assert f"peak {series.lower_bound:,} B at step {series.peak_step}" in svg
    assert len(re.findall(r"<path class=\"k0\"", svg)) == 1


def _boxes_and_labels(svg: str, label: str) -> tuple[list[ET.Element], list[ET.Element]]:
    root = ET.fromstring(svg)
    rects = [e for e in root.iter() if e.tag.endswith("rect")]
    texts = [e for e in root.iter() if e.tag.endswith("text") and label in e.get("class", "")]
    return rects, texts


def _under(rects: list[ET.Element], text: ET.Element, kind: str) -> ET.Element:
    """The rect of ``kind`` (a class prefix) that holds the text's anchor point."""
    x, y = float(text.get("x", "nan")), float(text.get("y", "nan"))
    found = [
        r
        for r in rects
        if r.get("class", "").startswith(kind)
        and float(r.get("x", "nan")) <= x <= float(r.get("x", "nan")) + float(r.get("width", "0"))
        and float(r.get("y", "nan")) <= y <= float(r.get("y", "nan")) + float(r.get("height", "0"))
    ]
    assert len(found) == 1, text.text
    return found[0]


def _font(text: ET.Element) -> float:
    style = re.fullmatch(r"font-size:([\d.]+)px", text.get("style", "font-size:9px"))
    assert style is not None
    return float(style[1])


def test_no_hole_label_is_taller_than_its_strip() -> None:
    # r0 leaves a 15 B hole in the first range, the second range is a 10 B hole: on a map
    # 576 units tall, strips of 8.6 and 5.8 units, too thin for a 9-unit label.
    memory = Memory(1000, (Range(0, 985), Range(990, 1000)))
    requests = (Request("r0", 970, 0, 4), Request("r1", 20, 0, 4))
    capture = Capture("thin", 4, memory, requests)
    layout = attempt_map(capture, run_strategy(capture, "lifetime/first-fit"))
    assert layout.failure is not None and layout.failure.holes == ((970, 985), (990, 1000))
    rects, labels = _boxes_and_labels(map_svg("m0", layout, {"default": 0}), "hl")
    for label in labels:
        strip = _under(rects, label, "hole")
        assert _font(label) * 1.3 <= float(strip.get("height", "0")) + 0.05, label.text
    assert [(t.text, _font(t)) for t in labels] == [("15 B", 6.6)]  # shrunk; 10 B: none
    wide = attempt_map(fragmented(), run_strategy(fragmented(), "alignment/first-fit"))
    _, labels = _boxes_and_labels(map_svg("m0", wide, CLASSES), "hl")
    assert labels and all(_font(t) == 9 for t in labels)  # holes tall enough keep the font


def test_box_labels_contrast_with_their_box() -> None:
    two_each = [cls for cls in CLASSES for _ in "ab"]
    requests = tuple(Request(f"{cls}{j}", 100, 0, 4, cls=cls) for j, cls in enumerate(two_each))
    capture = Capture("labels", 4, Memory(800, (Range(0, 800),)), requests)
    layout = attempt_map(capture, run_strategy(capture, "lifetime/first-fit"))
    rects, labels = _boxes_and_labels(map_svg("m0", layout, CLASSES), "bl")
    fills = class_colors(CLASSES)
    by_class = {f"k{k}": cls for cls, k in CLASSES.items()}
    seen = set()
    for label in labels:
        cls = by_class[_under(rects, label, "k").get("class", "").split()[0]]
        text = LIGHT_TEXT if "lt" in label.get("class", "").split() else DARK_TEXT
        assert contrast(fills[cls], text) >= 4.5, (cls, text)
        seen.add((cls, text))
    # Light text on the mid-blue resident boxes, dark on the lighter classes.
    assert seen == {
        ("scratch", DARK_TEXT),
        ("activation", DARK_TEXT),
        ("output", DARK_TEXT),
        ("resident", LIGHT_TEXT),
    }
    assert f".bl{{fill:{DARK_TEXT}}}.bl.lt{{fill:{LIGHT_TEXT}}}" in LABEL_CSS


def _svg_of(figure: str) -> ET.Element:
    return ET.fromstring(re.search(r"<svg.*</svg>", figure, re.S)[0])  # type: ignore[index]


def test_the_bracket_band_runs_from_the_lower_bound_to_the_closest_top() -> None:
    b = Bracket(lower=970, upper=1120, top=1000, available=1000)
    figure = bracket_html(b)
    svg = _svg_of(figure)
    rects = {r.get("class"): r for r in svg.iter("rect")}
    band, lack = rects["bk-band"], rects["bk-lack"]
    top = next(line for line in svg.iter("line") if line.get("class") == "bk-top")
    left, right = float(band.get("x", "")), float(band.get("x", "")) + float(band.get("width", ""))
    at_top = float(top.get("x1", ""))
    # The axis is linear: the memory top sits at its share of the band.
    assert abs((at_top - left) / (right - left) - (1000 - 970) / (1120 - 970)) < 0.01
    assert float(lack.get("x", "")) == at_top
    assert abs(float(lack.get("x", "")) + float(lack.get("width", "")) - right) < 0.2
    texts = [t.text for t in svg.iter("text")]
    assert texts == ["lower bound 970 B", "closest placement 1,120 B", "memory top 1,000 B"]
    assert "a band 150&#8239;B wide, 15.00% of the available storage" in figure
    assert "needs 120&#8239;B more" in figure


def test_a_bracket_below_the_top_draws_nothing_lacking() -> None:
    figure = bracket_html(Bracket(lower=900, upper=1000, top=1000, available=1000))
    assert 'class="bk-lack"' not in figure and "more." not in figure


def test_a_wrapping_lifetime_has_its_edges_at_the_seam_dashed() -> None:
    # On a circle of 4 steps, w lives at steps 3 and 0: its two boxes, [3, 4) and [0, 1),
    # each get a dashed edge where the lifetime goes on across the seam; p, not wrapping,
    # none; on a line nothing wraps and nothing is dashed.
    from tilefit.model.placement import Placement
    from tilefit.plot.layout import placement_map

    wrapping = Request("w", 16, 3, 1)
    plain = Request("p", 16, 1, 3)
    capture = Capture("arc", 4, Memory(64, (Range(0, 64),)), (wrapping, plain), period=4)
    layout = placement_map(capture, Placement("arc", {"w": 0, "p": 16}).offsets, "arc")
    assert sorted((b.id, b.start, b.end, b.seam) for b in layout.boxes) == [
        ("p", 1, 3, None),
        ("w", 0, 1, 0),
        ("w", 3, 4, 4),
    ]
    root = ET.fromstring(map_svg("m0", layout, {"default": 0}))
    frame = Frame(84, 1030, 14, 590, capture.horizon, layout.size)
    dashed = sorted(p.get("d", "") for p in root.iter() if p.get("class") == "wr")
    xs = sorted(float(re.match(r"M([\d.]+) ", d).group(1)) for d in dashed)  # type: ignore[union-attr]
    assert xs == [round(frame.x(0), 1), round(frame.x(4), 1)]
    line = Capture("line", 4, Memory(64, (Range(0, 64),)), (plain, Request("q", 16, 0, 2)))
    flat = placement_map(line, {"p": 0, "q": 16}, "line")
    assert all(b.seam is None for b in flat.boxes)
    assert 'class="wr"' not in map_svg("m0", flat, {"default": 0})
