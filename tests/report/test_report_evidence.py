"""What the report says of a capacity deficit and of a placement found: every overloaded
window marked, who makes the peak, what must leave each window, a neutral word when
nothing was observed in production, only the legend of what is drawn, and a link that
saves the placement found."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
from checkout import ROOT
from report_helpers import fragmented, over_capacity

from tilefit.cli import main
from tilefit.formats.load import read_capture
from tilefit.formats.minimalloc import capture_from_csv
from tilefit.formats.save import placement_text
from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.model.placement import Placement
from tilefit.report.content import ReportContent, gather
from tilefit.report.html import render
from tilefit.report.svg import Frame, num
from tilefit.report.svgmap import map_svg
from tilefit.report.svgprofile import profile_frame, profile_svg
from tilefit.verdicts.check import check

EXAMPLES = ROOT / "examples"
NB = "&#8239;B"  # the page writes "6,608 B" with a narrow no-break space


@pytest.fixture(scope="module")
def one_zero() -> tuple[ReportContent, str]:
    content = gather(read_capture(EXAMPLES / "1-0.json"), time_limit=1)
    return content, render(content)


def _section(page: str, ident: str) -> str:
    start = page.index(f'<section id="{ident}">')
    return page[start : page.index("</section>", start)]


def _svg(page: str, marker: str) -> str:
    start = page.index(marker)
    return page[start : page.index("</svg>", start)]


def test_every_overloaded_window_is_marked_on_the_maps_and_the_profile(
    one_zero: tuple[ReportContent, str],
) -> None:
    content, page = one_zero
    assert content.diagnosis.verdict == "capacity"
    pictures = [_svg(page, f'data-map="{view.key}"') for view in content.maps]
    pictures.append(_svg(page, '<svg class="profile"'))
    for svg in pictures:
        assert svg.count('<rect class="win"') == 4
        labels = re.findall(r'<text class="winl"[^>]*>([^<]*)</text>', svg)
        assert labels == ["+6,608 B", "+8,904 B", "+13,832 B", "+16,328 B"]
    data = json.loads(
        re.findall(r'<script type="application/json" id="tilefit-data">(.*?)</script>', page)[0]
    )
    assert [(w["start"], w["end"], w["excess"], w["must_leave"]) for w in data["windows"]] == [
        (12, 13, 6608, 6632),
        (26, 27, 8904, 8928),
        (40, 41, 13832, 13856),
        (54, 55, 16328, 16360),
    ]
    assert "overloaded window (+bytes over)" in page  # in the legend
    assert '<a href="#windows">' in page
    # The failed unit beside the map is the sequence, named by its id, not by a member.
    side = pictures[0][pictures[0].index("failed unit vs. holes") :]
    assert '">w3.attn_qkv</text>' in side and '">sequence of 3</text>' in side
    assert "layer3/attn_qkv/weight[0]" not in side


def test_a_window_band_spans_its_steps_under_a_row_of_labels() -> None:
    content = gather(over_capacity(), time_limit=1)
    layout = content.maps[0].layout
    svg = map_svg("m0", layout, {"resident": 0, "activation": 1, "scratch": 2})
    frame = Frame(84, 1030, 30, 606, layout.horizon, layout.size)  # 16 units lower than bare
    assert 'viewBox="0 0 1200 656"' in svg
    band = f'<rect class="win" data-w="0" x="{num(frame.x(1))}" y="30" '
    assert band + f'width="{num(frame.x(2) - frame.x(1))}" height="576"/>' in svg
    profile = profile_svg(content.series, {"resident": 0, "activation": 1, "scratch": 2})
    assert profile_frame(content.series).top == 28
    assert profile.count('<rect class="win"') == 1 and ">+16 B</text>" in profile


def test_the_evidence_names_the_peaks_largest_requests_and_what_must_leave_each_window(
    one_zero: tuple[ReportContent, str],
) -> None:
    _, page = one_zero
    evidence = _section(page, "evidence")
    assert (
        "The largest requests live at the peak (step 54): <code>m3.l3.mlp_down.in16</code> "
        f"(125,952{NB}, activation), <code>m3.l3.mlp_down.in8</code> (62,984{NB}, activation), "
        f"<code>m3.l3.cast.staging</code> (36,376{NB}, scratch)"
    ) in evidence
    assert "and 22 more; these 5 hold" in evidence
    for steps, over, leave in (
        (12, "6,608", "6,632"),
        (26, "8,904", "8,928"),
        (40, "13,832", "13,856"),
        (54, "16,328", "16,360"),
    ):
        assert f"step {steps}: {over}{NB} over, <b>{leave}{NB}</b> must leave" in evidence
    assert "4 overloaded windows, each of which must lose its own bytes" in evidence
    assert "must leave the peak" not in page  # no longer the peak alone
    assert "Live in all 4 windows, so shrinking one helps in each: <code>w3.attn_qkv[0]" in page
    # The bounds section lists every window.
    start = page.index('<h3 id="windows">')
    table = page[start : page.index("</table>", start)]
    assert "Overloaded windows: 4, of 4 steps" in table
    assert table.count("<tr><td class=n>") == 4
    assert f"<td class=n><b>16,360{NB}</b></td><td>all ranges</td>" in table


def test_a_fits_or_fragmentation_tile_has_no_window_and_no_peak_list() -> None:
    page = render(gather(fragmented(), time_limit=2))
    shown = page[: page.index('<div id="tip"')]  # the page, without its script
    assert 'class="win"' not in shown and "overloaded window" not in shown
    assert "The largest requests live at the peak" not in page
    assert '"windows":[]' in page


def test_without_an_observed_failure_the_failure_is_the_replays() -> None:
    # A MiniMalloc CSV carries no production history: 112 B live at step 1 of 96 B.
    capture = capture_from_csv("id,lower,upper,size\na,0,2,48\nb,1,3,40\nc,1,2,24\n", "o.96.csv")
    content = gather(capture, time_limit=1)
    page = render(content)
    assert content.diagnosis.production_failed_id is not None
    assert "production error" not in page
    assert "The unit the replay's failure names, <code>" in page
    assert "<h3>The replay&#x27;s failure</h3>" in page
    assert "The replay&#x27;s last attempt, " in page
    # With the failure observed, it is the production error, as before.
    observed = render(gather(fragmented(), time_limit=2))
    assert "The unit named in the production error, <code>big</code>" in observed
    assert "<h3>Production failure</h3>" in observed


def _fits() -> Capture:
    requests = (Request("a", 30, 0, 2), Request("b", 10, 1, 3))
    return Capture("fits", 3, Memory(64, (Range(0, 64),)), requests)


def test_the_legend_names_only_what_is_drawn() -> None:
    page = render(gather(_fits(), time_limit=1))
    assert gather(_fits(), time_limit=1).diagnosis.verdict == "fits"
    legend = page[page.index('<div class="legend">') : page.index("</div>", page.index("legend"))]
    for absent in (
        "failed unit",
        "hole over",
        "overloaded",
        "unavailable",
        "interleaved",
        "element",
    ):
        assert absent not in legend
    legend = _legend(render(gather(fragmented(), time_limit=2)))
    for present in ("hole over the failed unit", "failed unit&#x27;s lifetime", "unavailable"):
        assert present in legend or present.replace("&#x27;", "'") in legend
    assert "interleaved region" in legend and "memory-element boundary" in legend


def _legend(page: str) -> str:
    start = page.index('<div class="legend">')
    return page[start : page.index("</div>", start)]


def _saved(page: str) -> tuple[str, bytes]:
    found = re.search(r'download="([^"]+)" href="data:application/json;base64,([^"]+)"', page)
    assert found is not None
    return found.group(1), base64.b64decode(found.group(2))


def test_the_save_link_holds_the_checked_placement_as_a_placement_file() -> None:
    capture = fragmented()
    content = gather(capture, time_limit=2)
    d = content.diagnosis
    assert d.verdict == "fragmentation" and d.placement is not None
    name, saved = _saved(render(content))
    assert name == "frag.placement.json"
    assert saved == placement_text(d.placement).encode("utf-8")
    found = json.loads(saved)
    assert check(capture, Placement(found["capture"], found["offsets"])).valid
    # A tile that fits links its (production) placement; no placement, no link.
    fits = gather(_fits(), time_limit=1)
    assert fits.diagnosis.placement is not None
    assert _saved(render(fits))[1] == placement_text(fits.diagnosis.placement).encode("utf-8")
    assert 'id="save-placement"' not in render(gather(over_capacity(), time_limit=1))


def test_the_saved_placement_is_what_diagnose_writes_and_check_accepts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = str(EXAMPLES / "0-0.json")
    page, written = tmp_path / "r.html", tmp_path / "diagnose.json"
    assert main(["report", capture, "--time-limit", "2", "-o", str(page)]) == 0
    assert main(["diagnose", capture, "--time-limit", "2", "-o", str(written)]) == 0
    name, saved = _saved(page.read_text(encoding="utf-8"))
    assert name == "0-0.placement.json"
    assert saved == written.read_bytes()
    placed = tmp_path / name
    placed.write_bytes(saved)
    capsys.readouterr()
    assert main(["check", capture, str(placed)]) == 0
