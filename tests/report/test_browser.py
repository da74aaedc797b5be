"""The report in a real browser: headless Chromium renders the maps and shows the tooltips.

Skips when Debian's ``chromium`` is not installed (``.ci/run`` installs it
when it runs as root).
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from browser_helpers import Browser, chromium_path
from checkout import ROOT
from matplotlib import image
from report_helpers import big_content, fragmented

from tilefit.cli import main
from tilefit.formats.load import read_capture
from tilefit.plot.colors import class_colors
from tilefit.report.html import render, write_report

EXAMPLES = ROOT / "examples"

pytestmark = pytest.mark.skipif(
    chromium_path() is None,
    reason="chromium is not installed (Debian: apt-get install chromium; .ci/run does it as root)",
)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    folder = tmp_path_factory.mktemp("browser")
    report = folder / "report.html"
    write_report(fragmented(), report, time_limit=2)
    with Browser(folder / "profile", width=1280, height=1000) as browser:
        browser.call("Network.enable")
        browser.call("Runtime.enable")
        browser.events.clear()  # from here on, only what the report does
        browser.open(report.as_uri())
        yield browser


def _box(page: Browser, selector: str) -> dict[str, float]:
    """Scroll the element into view; its viewport rectangle and the page's scroll offset."""
    found = page.evaluate(
        f"""(() => {{
          const el = document.querySelector({json.dumps(selector)});
          if (!el) return null;
          el.scrollIntoView({{block: "center"}});
          const r = el.getBoundingClientRect();
          return {{x: r.x, y: r.y, width: r.width, height: r.height,
                   sx: window.scrollX, sy: window.scrollY}};
        }})()"""
    )
    assert found is not None, f"nothing matches {selector}"
    box: dict[str, float] = found
    return box


def _request_selector(page: Browser, map_key: str, ident: str) -> str:
    index = page.evaluate(
        "JSON.parse(document.getElementById('tilefit-data').textContent)"
        f".requests.id.indexOf({json.dumps(ident)})"
    )
    assert index >= 0
    return f'svg.map[data-map="{map_key}"] rect[data-k="{index}"]'


def _tip(page: Browser) -> tuple[str, str]:
    shown: list[str] = page.evaluate(
        "[document.getElementById('tip').style.display, document.getElementById('tip').innerText]"
    )
    return shown[0], shown[1]


def _centre(box: dict[str, float]) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_the_failure_map_renders(page: Browser) -> None:
    box = _box(page, 'svg.map[data-map="m0"]')
    assert box["width"] > 800 and box["height"] > 300
    png = page.screenshot(
        {
            "x": box["x"] + box["sx"],
            "y": box["y"] + box["sy"],
            "width": box["width"],
            "height": box["height"],
        }
    )
    pixels = image.imread(io.BytesIO(png), format="png")[:, :, :3]
    assert pixels.shape[0] == pytest.approx(box["height"], abs=2)
    assert pixels.shape[1] == pytest.approx(box["width"], abs=2)
    rgb = (pixels * 255).round().astype(np.int64)
    colours = rgb[:, :, 0] << 16 | rgb[:, :, 1] << 8 | rgb[:, :, 2]
    assert len(np.unique(colours)) > 20  # not blank: boxes, holes, hatching, text
    assert (colours != 0xFFFFFF).mean() > 0.2
    # Every class with a box in the production failure shows in its own colour.
    palette = class_colors(("scratch", "activation", "output", "resident"))
    for cls in ("scratch", "activation", "resident"):
        wanted = int(palette[cls].lstrip("#"), 16)
        near = _near(rgb, wanted)
        assert near.sum() > 50, f"no {cls} box visible"


def _near(rgb: Any, colour: int, tolerance: int = 6) -> Any:
    target = np.array([colour >> 16 & 255, colour >> 8 & 255, colour & 255])
    return np.all(np.abs(rgb - target) <= tolerance, axis=2)


def test_hovering_a_box_shows_its_tooltip(page: Browser) -> None:
    box = _box(page, _request_selector(page, "m0", "partial"))
    page.hover(*_centre(box))
    display, text = _tip(page)
    assert display == "block"
    for part in (
        "partial",
        "layer0/partial",
        "size 32 B, alignment 8",
        "class activation",
        "lifetime: steps [2, 4)",
        "offset 48 .. 80",
    ):
        assert part in text
    page.hover(5, 5)  # off every box: the tooltip goes
    assert _tip(page)[0] == "none"


def test_hovering_a_hole_tells_its_size_and_the_failed_unit(page: Browser) -> None:
    box = _box(page, 'svg.map[data-map="m0"] rect.hole[data-h="0"]')
    page.hover(*_centre(box))
    display, text = _tip(page)
    assert display == "block"
    assert "hole 1 of" in text and "big needs 40 B" in text


def test_clicking_a_box_marks_its_conflict_partners(page: Browser) -> None:
    box = _box(page, _request_selector(page, "m1", "x"))
    page.click(*_centre(box))
    marked = page.evaluate(
        """(() => {
          const ids = JSON.parse(document.getElementById('tilefit-data').textContent).requests.id;
          const of = (cls) => [...new Set([...document.querySelectorAll('rect.' + cls)]
              .map((el) => ids[+el.getAttribute('data-k')]))].sort();
          return {sel: document.body.classList.contains('sel'), on: of('on'),
                  partner: of('partner'), info: document.getElementById('selection').innerText};
        })()"""
    )
    assert marked["sel"] is True
    assert marked["on"] == ["x"]
    assert marked["partner"] == ["stage", "w.k", "w.q"]  # x conflicts with sequence w and stage
    assert "3 conflict partners" in marked["info"]
    page.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Escape", "code": "Escape"})
    assert page.evaluate("document.querySelectorAll('rect.partner').length") == 0
    box = _box(page, _request_selector(page, "m1", "w.q"))  # sequence w: w.q and w.k
    page.click(*_centre(box))
    info = page.evaluate("document.getElementById('selection').innerText")
    assert "; 1 sequence mate (grey edge)" in info
    page.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Escape", "code": "Escape"})


def test_a_class_can_be_highlighted(page: Browser) -> None:
    light = "getComputedStyle(document.querySelector('svg.map text.bl.lt')).fill"
    assert page.evaluate(light) == "rgb(255, 255, 255)"  # on the resident boxes' mid blue
    chip = _box(page, '.chip[data-cls="1"]')  # the capture's second class: activation
    page.click(*_centre(chip))
    opacity = page.evaluate(
        """(() => {
          const get = (sel) => getComputedStyle(document.querySelector(sel)).opacity;
          return [document.body.getAttribute('data-hl'), get('svg.map rect.k1'),
                  get('svg.map rect.k0')];
        })()"""
    )
    assert opacity[0] == "1"
    assert float(opacity[1]) == 1.0 and float(opacity[2]) < 0.5
    assert page.evaluate(light) == "rgb(0, 0, 0)"  # light labels turn dark on faded boxes
    page.click(*_centre(chip))  # a second click lets go
    assert page.evaluate("document.body.hasAttribute('data-hl')") is False
    assert page.evaluate(light) == "rgb(255, 255, 255)"


def test_a_sequence_found_by_its_id_is_named_by_it(page: Browser) -> None:
    find = _box(page, "#find")
    page.click(*_centre(find))
    page.call("Input.insertText", {"text": "w"})
    page.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Enter", "code": "Enter"})
    found = page.evaluate(
        """(() => {
          const ids = JSON.parse(document.getElementById('tilefit-data').textContent).requests.id;
          return {info: document.getElementById('selection').innerText,
                  on: [...new Set([...document.querySelectorAll('rect.on')]
                    .map((el) => ids[+el.getAttribute('data-k')]))].sort()};
        })()"""
    )
    assert found["info"].startswith("sequence w (2 members): 1 conflict partner (red): x")
    assert found["on"] == ["w.k", "w.q"]  # both members, not the first alone
    page.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Escape", "code": "Escape"})
    page.evaluate("document.getElementById('find').value = ''")


def test_hovering_the_profile_tells_the_bytes_live(page: Browser) -> None:
    box = _box(page, "svg.profile rect.hover")
    # Step 3 of 4: stage has ended, partial, big, w.q and w.k are live.
    page.hover(box["x"] + box["width"] * 3.5 / 4, box["y"] + box["height"] / 2)
    display, text = _tip(page)
    assert display == "block"
    assert "steps [3, 4)" in text and "live 108 B of 136 B available" in text


def test_nothing_is_fetched_and_no_script_fails(page: Browser) -> None:
    page.evaluate("1")  # flush the events that arrived so far
    urls = [
        e["params"]["request"]["url"]
        for e in page.events
        if e["method"] == "Network.requestWillBeSent"
    ]
    assert urls and all(url.startswith("file://") for url in urls)
    assert len(urls) == 1  # the report itself, nothing else
    errors = [e for e in page.events if e["method"] == "Runtime.exceptionThrown"]
    assert errors == []


def test_a_twenty_thousand_request_report_opens_in_seconds(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    folder = tmp_path_factory.mktemp("big")
    report = folder / "big.html"
    report.write_text(render(big_content(20_000)), encoding="utf-8")
    with Browser(folder / "profile", width=1280, height=1000) as browser:
        started = time.monotonic()
        browser.open(report.as_uri())
        assert (
            browser.evaluate("document.querySelectorAll('svg.map rect[data-k]').length") == 39_999
        )
        seconds = time.monotonic() - started
        assert seconds < 10  # about 1 s here
        # Made-up offsets overlap, so ask the page which box is on top where we point.
        x, y = _centre(_box(browser, _request_selector(browser, "m0", "layer0500/tensor10000")))
        on_top = browser.evaluate(
            f"(() => {{ const k = document.elementFromPoint({x}, {y}).getAttribute('data-k');"
            " return JSON.parse(document.getElementById('tilefit-data').textContent)"
            ".requests.id[+k]; })()"
        )
        browser.hover(x, y)
        display, text = _tip(browser)
        assert display == "block" and text.startswith(on_top + "\n")


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Browser, Path]]:
    """A second browser for the reports of the examples; it saves downloads in its folder."""
    folder = tmp_path_factory.mktemp("examples")
    for name in ("0-0", "1-0"):
        write_report(read_capture(EXAMPLES / f"{name}.json"), folder / f"{name}.html", time_limit=2)
    downloads = folder / "downloads"
    downloads.mkdir()
    with Browser(folder / "profile", width=1280, height=1000) as browser:
        browser.save_downloads(downloads)
        yield browser, folder


def test_the_four_overloaded_windows_of_1_0_are_marked(examples: tuple[Browser, Path]) -> None:
    page, folder = examples
    page.open((folder / "1-0.html").as_uri())
    marked = page.evaluate(
        """(() => {
          const bands = (sel) => [...document.querySelectorAll(sel + ' rect.win')].map((r) => {
            const b = r.getBoundingClientRect();
            return {x: b.x, width: b.width, height: b.height,
                    fill: getComputedStyle(r).fill, pointer: getComputedStyle(r).pointerEvents};
          });
          const labels = (sel) => [...document.querySelectorAll(sel + ' text.winl')]
            .map((t) => t.textContent);
          return {map: bands('svg.map[data-map="m0"]'), profile: bands('svg.profile'),
                  mapLabels: labels('svg.map[data-map="m0"]'), profileLabels: labels('svg.profile'),
                  table: document.querySelectorAll('#windows + p + table tr').length};
        })()"""
    )
    over = ["+6,608 B", "+8,904 B", "+13,832 B", "+16,328 B"]
    assert marked["mapLabels"] == over and marked["profileLabels"] == over
    assert marked["table"] == 5  # a head row and one row per window
    for picture in ("map", "profile"):
        bands = marked[picture]
        assert len(bands) == 4
        for band in bands:
            assert band["width"] > 5 and band["height"] > 100  # drawn, and visible
            assert "#over" in band["fill"] and band["pointer"] == "none"
        # Steps 12, 26, 40 and 54 of 58: the bands stand where the steps are, in order.
        lefts = [b["x"] for b in bands]
        step = (lefts[3] - lefts[0]) / 42
        assert [round((x - lefts[0]) / step) for x in lefts] == [0, 14, 28, 42]
    # The map's bands let the pointer through to the boxes under them.
    band = _box(page, 'svg.map[data-map="m0"] rect.win[data-w="3"]')
    x, y = band["x"] + band["width"] / 2, band["y"] + band["height"] * 0.35
    under = page.evaluate(f"document.elementFromPoint({x}, {y}).getAttribute('data-k')")
    assert under is not None
    page.hover(x, y)
    assert _tip(page)[0] == "block"


def test_hovering_an_overloaded_step_names_its_window(examples: tuple[Browser, Path]) -> None:
    page, folder = examples
    page.open((folder / "1-0.html").as_uri())
    box = _box(page, "svg.profile rect.hover")
    page.hover(box["x"] + box["width"] * 54.5 / 58, box["y"] + box["height"] / 2)
    display, text = _tip(page)
    assert display == "block"
    assert "steps [54, 55)" in text and "live 515,200 B of 498,872 B available" in text
    assert "overloaded window 4 of 4: steps [54, 55)" in text
    assert "16,328 B over at step 54; 16,360 B must leave" in text
    page.hover(box["x"] + box["width"] * 20.5 / 58, box["y"] + box["height"] / 2)
    assert "overloaded" not in _tip(page)[1]


def test_the_save_link_downloads_a_placement_that_check_accepts(
    examples: tuple[Browser, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    page, folder = examples
    page.open((folder / "0-0.html").as_uri())
    page.click(*_centre(_box(page, "a#save-placement")))
    begun = page.wait_for("Browser.downloadWillBegin")
    assert begun["params"]["suggestedFilename"] == "0-0.placement.json"
    while True:
        progress = page.wait_for("Browser.downloadProgress")
        if progress["params"]["state"] != "inProgress":
            break
    assert progress["params"]["state"] == "completed"
    saved = folder / "downloads" / "0-0.placement.json"
    assert json.loads(saved.read_text(encoding="utf-8"))["format"] == "tilefit-placement"
    capsys.readouterr()
    assert main(["check", str(EXAMPLES / "0-0.json"), str(saved)]) == 0
    assert capsys.readouterr().out.startswith("valid")
