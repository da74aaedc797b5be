"""Issue 50 item 1: on an import whose least lies below the toolchain's plan, the report's
headline, its comparison panel and its download, read in a real browser, and diagnose's
first lines all give that one top, proven.

Before, the headline said "tilefit's plan: 163,840 B, as IREE's" and "no lower placement
found" while the panel below said "tilefit's least ends at 139,264 B", and the download was
IREE's own placement under IREE's file name.

Skips when Debian's ``chromium`` is not installed, and each toolchain when its extra is not.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_helpers import Browser, chromium_path
from checkout import ROOT
from iree_programs import chain, needs_iree, write

from tilefit.cli import main
from tilefit.formats.load import read_capture, read_placement
from tilefit.formats.save import write_capture, write_placement
from tilefit.model.capture import Capture, Memory, Origin, Range, Request
from tilefit.model.placement import Placement, placement_top

EXAMPLES = ROOT / "examples"

pytestmark = pytest.mark.skipif(
    chromium_path() is None,
    reason="chromium is not installed (Debian: apt-get install chromium; .ci/run does it as root)",
)

SECONDS = "60"  # each least here is proven in seconds: the limit only bounds a stuck run


def _iree(folder: Path) -> list[str]:
    needs_iree()
    program = write(folder, "chain.mlir", chain([64, 256, 64, 512, 64, 128, 64, 1024, 64]))
    return ["iree", str(program)]


def _tflm(folder: Path) -> list[str]:
    pytest.importorskip("tflite_micro", reason="TFLM's interpreter (pip install 'tilefit[tflm]')")
    return ["tflm", str(shutil.copy(EXAMPLES / "tflm" / "streaming.tflite", folder))]


def _executorch(folder: Path) -> list[str]:
    return ["executorch", str(EXAMPLES / "executorch" / "encoder_32.default.executorch.json")]


IMPORTS = {"IREE": _iree, "TFLM": _tflm, "ExecuTorch": _executorch}


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Browser, Path]]:
    folder = tmp_path_factory.mktemp("imports")
    downloads = folder / "downloads"
    downloads.mkdir()
    with Browser(folder / "profile", width=1280, height=1000) as page:
        page.save_downloads(downloads)
        yield page, downloads


def _imported(tool: str, folder: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The one capture the toolchain's import writes (its placement beside it)."""
    assert main(["import", *IMPORTS[tool](folder), "-o", str(folder / "caps")]) == 0
    capsys.readouterr()
    (capture,) = [p for p in (folder / "caps").glob("*.json") if ".placement." not in p.name]
    return capture


def _text(page: Browser, selector: str) -> str:
    said: str = page.evaluate(f"document.querySelector({json.dumps(selector)}).innerText")
    return said.replace("\u202f", " ")  # the page keeps a number and its unit together


def _download(page: Browser, downloads: Path) -> Path:
    box = page.evaluate(
        """(() => { const a = document.querySelector('a#save-placement');
          a.scrollIntoView({block: 'center'}); const r = a.getBoundingClientRect();
          return [r.x + r.width / 2, r.y + r.height / 2]; })()"""
    )
    page.click(*box)
    name = page.wait_for("Browser.downloadWillBegin")["params"]["suggestedFilename"]
    while page.wait_for("Browser.downloadProgress")["params"]["state"] == "inProgress":
        pass
    return downloads / name


def _bytes(text: str, pattern: str) -> int:
    found = re.search(pattern, text)
    assert found is not None, f"{pattern!r} not in {text!r}"
    return int(found[1].replace(",", ""))


@pytest.mark.parametrize("tool", list(IMPORTS))
def test_the_report_and_diagnose_give_one_least_top(
    tool: str,
    tmp_path: Path,
    browser: tuple[Browser, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    page, downloads = browser
    capture_file = _imported(tool, tmp_path, capsys)
    own = capture_file.with_name(capture_file.stem + ".placement.json")
    capture = read_capture(capture_file)
    assert capture.origin is not None
    heap = capture.origin.heap

    # diagnose's first lines: the headline's tilefit part names the least, proven.
    assert main(["diagnose", str(capture_file), "--time-limit", SECONDS]) == 0
    first = capsys.readouterr().out.splitlines()[:5]
    told = _bytes(first[2], r"2\. tilefit's plan: ([\d,]+) B \(proven least\)")
    assert told < heap  # the toolchain's plan is not the answer: a lower one is known
    assert f"above the best placement found ({told:,} B, proven optimal)" in first[4]

    report = tmp_path / "r.html"
    argv = ["report", str(capture_file), "--placement", str(own), "-o", str(report)]
    assert main([*argv, "--time-limit", SECONDS]) == 0
    capsys.readouterr()
    page.open(report.as_uri())
    headline = _text(page, "ol.headline")
    assert _bytes(headline, r"tilefit's plan: ([\d,]+) B \(proven least\)") == told
    assert "no lower placement found" not in _text(page, "header")
    assert f"above the best placement found ({told:,} B, proven optimal)" in _text(page, "p.heap")
    panel = _text(page, "figure#compare p")
    assert _bytes(panel, r"tilefit's least ends at ([\d,]+) B \(proven the least\)") == told

    saved = _download(page, downloads)
    assert saved.name == f"{capture.name}.tilefit.placement.json"  # never the toolchain's name
    # The command that takes the plan back names that file (ExecuTorch's planner takes none).
    assert (saved.name in headline) is (tool != "ExecuTorch")
    placement = read_placement(saved)
    assert placement_top(capture, placement.offsets) == told
    assert main(["check", str(capture_file), str(saved)]) == 0  # the referee accepts it
    capsys.readouterr()


def test_the_bytes_saved_stay_clear_of_their_bar(
    tmp_path: Path, browser: tuple[Browser, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # "131,072 B saved (12.5%)" was struck through by its bar. Here the toolchain's plan
    # ends at 400 B, the least at 300 B: a bar tall enough for the label beside it.
    page, _ = browser
    requests = (Request("a", 100, 0, 2), Request("b", 100, 0, 3), Request("c", 100, 1, 3))
    toy = Capture("toy", 3, Memory(400, (Range(0, 400),)), requests, origin=Origin("TFLM", 400))
    capture, own, report = tmp_path / "toy.json", tmp_path / "own.json", tmp_path / "r.html"
    write_capture(toy, capture)
    write_placement(Placement("toy", {"a": 0, "b": 100, "c": 300}), own)
    assert main(["report", str(capture), "--placement", str(own), "-o", str(report)]) == 0
    page.open(report.as_uri())
    boxes = page.evaluate(
        """(() => ['text.cmp-st', 'path.cmp-saved'].map((s) => {
          const r = document.querySelector(s).getBoundingClientRect();
          return [r.left, r.right, r.top, r.bottom]; }))()"""
    )
    (label_left, label_right, label_top, label_bottom), (bar_left, bar_right, top, bottom) = boxes
    assert label_bottom > top and label_top < bottom  # side by side, at the bar's height
    assert label_left > bar_right or label_right < bar_left  # and clear of it
