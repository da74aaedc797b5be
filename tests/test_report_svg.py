"""The report's own SVG: boxes where the geometry says, profile columns that keep the peak."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from itertools import pairwise

from report_helpers import fragmented

from tilefit.engine.attempt import run_strategy
from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.plot.layout import attempt_map
from tilefit.plot.series import profile_series
from tilefit.report.svg import Frame, num
from tilefit.report.svgmap import map_svg
from tilefit.report.svgprofile import columns, profile_frame, profile_svg

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
