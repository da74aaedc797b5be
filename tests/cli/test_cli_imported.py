"""On an imported capture, `diagnose` and the report open with the compiler's own plan, and
say that the production replay is tilefit's nearest strategy to that compiler's planner,
not the compiler failing (issue 27, item 7). Before, they opened with "production replay:
size/best-fit ... failed on ...", which read as XLA's allocator failing."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from tilefit.cli import main
from tilefit.formats.save import write_capture
from tilefit.model.capture import Capture, Memory, Origin, Range, Request

REPLAY = "production replay: tilefit's nearest strategy to {tool}'s planner, not {tool} itself"


def imported(tool: str, heap: int, plan: str, production: str) -> Capture:
    """Three requests of 100 B, 300 B live at steps 1 and 2, in the tool's own heap."""
    requests = (
        Request("a", 100, 0, 2, alignment=4),
        Request("b", 100, 0, 3, alignment=4),
        Request("c", 100, 1, 3, alignment=4),
    )
    return Capture(
        name="toy",
        horizon=3,
        memory=Memory(heap, (Range(0, heap, "temp"),)),
        requests=requests,
        production=(production,),
        origin=Origin(tool, heap, "toy.txt", plan),
    )


def diagnose_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], capture: Capture, *argv: str
) -> list[str]:
    path = tmp_path / "toy.json"
    write_capture(capture, path)
    main(["diagnose", str(path), "--workers", "1", "--time-limit", "2", *argv])
    return capsys.readouterr().out.splitlines()


def test_diagnose_opens_with_xla_s_heap(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = diagnose_lines(tmp_path, capsys, imported("XLA", 300, "heap", "size/best-fit"))
    assert lines[:7] == [
        "toy: XLA's own heap FITS; tilefit's plan FITS",
        "  1. XLA's own plan: its heap of 300 B fits in the 300 B available",
        "  2. tilefit's plan: 300 B (proven least), as XLA's, fits; nothing to gain",
        "",
        "XLA's heap is optimal (equals the live lower bound, 300 B)",
        "",
        REPLAY.format(tool="XLA") + "; a failure here is not XLA's",
    ]
    assert lines[7].startswith("  size/best-fit: fits")
    # Asked about less memory than XLA's heap: XLA's plan first, by how much it is over.
    lines = diagnose_lines(
        tmp_path, capsys, imported("XLA", 300, "heap", "size/best-fit"), "--capacity", "250"
    )
    assert lines[:6] == [
        "toy: XLA's own heap DOES NOT FIT; tilefit: CAPACITY",
        "  1. XLA's own plan: its heap of 300 B needs 50 B more than the 250 B available",
        "  2. tilefit: no plan can fit: at least 50 B must leave (capacity, below)",
        "",
        "XLA's heap is optimal (equals the live lower bound, 300 B)",
        "",
    ]
    assert lines[6].startswith(REPLAY.format(tool="XLA"))
    assert lines[7].startswith("  size/best-fit: failed on ")


def test_xla_s_plan_over_and_tilefit_s_within_says_both_in_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 38's example: the toolchain's plan does not fit where tilefit's does. Before,
    the headline was "FITS" alone, and the next line said XLA's heap was over."""
    lines = diagnose_lines(
        tmp_path, capsys, imported("XLA", 400, "heap", "size/best-fit"), "--capacity", "320"
    )
    assert lines[:3] == [
        "toy: XLA's own heap DOES NOT FIT; tilefit's plan FITS",
        "  1. XLA's own plan: its heap of 400 B needs 80 B more than the 320 B available",
        "  2. tilefit's plan: 300 B (proven least), 100 B less than XLA's, fits; XLA takes no "
        "plan back: tilefit cannot export it",
    ]


def test_diagnose_opens_with_tflm_s_head(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = diagnose_lines(tmp_path, capsys, imported("TFLM", 320, "head", "size/first-fit"))
    # The best placement found reaches the live lower bound: proven by it, searched or not.
    assert lines[4] == (
        "TFLM's head is 320 B, 20 B (6.7%) above the best placement found (300 B, proven optimal)"
    )
    assert lines[6] == REPLAY.format(tool="TFLM") + "; a failure here is not TFLM's"


def test_a_capture_not_imported_opens_with_the_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = imported("XLA", 300, "heap", "size/best-fit")
    lines = diagnose_lines(tmp_path, capsys, replace(capture, origin=None))
    assert lines[2] == "production replay:"


def test_the_report_opens_with_the_compiler_s_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, page = tmp_path / "toy.json", tmp_path / "r.html"
    write_capture(imported("XLA", 300, "heap", "size/best-fit"), path)
    assert main(["report", str(path), "--capacity", "250", "-o", str(page)]) == 0
    html = page.read_text(encoding="utf-8").replace("&#x27;", "'")
    header = re.sub("<[^>]+>", "", html[html.index("<header>") : html.index("</header>")])
    # The banner says both parts in the diagnosis' order: XLA's plan, then tilefit's.
    own = "XLA's own plan: its heap of 300 B needs 50 B more than the 250 B available."
    ours = "tilefit: no plan can fit: at least 50 B must leave (capacity, below)."
    assert header.startswith(f"tilefit report: toy{own}{ours}capacity")
    assert header.endswith(
        "XLA's heap is optimal (equals the live lower bound, 300 B). Imported from toy.txt."
    )
    nearest = "tilefit's nearest strategy to XLA's planner, not XLA itself"
    assert f"On this import, the replay is {nearest}" in html
    assert f"This replay is {nearest}" in html
    assert main(["report", str(path), "-o", str(page)]) == 0
    html = page.read_text(encoding="utf-8").replace("&#x27;", "'")
    assert "Fits: tilefit's nearest strategy to XLA's planner places every request" in html
    assert "The production placement fits" not in html
    capsys.readouterr()
