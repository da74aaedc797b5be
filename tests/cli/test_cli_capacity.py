"""The capacity question on any capture (issue 27, item 6): ``--capacity BYTES`` on a JSON
capture of one memory range, on every command that reads one; ``whatif --capacity-add`` with
a negative amount. Before, the first was "--capacity: applies only to a minimalloc CSV" and
the second "must be > 0", both exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tilefit.cli import main
from tilefit.output.schema import output_schema

# Peak 100 B at steps [6, 8) in a memory of 100 B: it fits, with nothing to spare.
DOC: dict[str, Any] = {
    "format": "tilefit-capture",
    "version": 1,
    "name": "caps",
    "horizon": 10,
    "memory": {"size": 100, "ranges": [{"start": 0, "end": 100, "name": "main"}]},
    "requests": [
        {"id": "a", "size": 40, "start": 0, "end": 10},
        {"id": "b", "size": 30, "start": 2, "end": 8},
        {"id": "c", "size": 30, "start": 6, "end": 10},
    ],
}
FAST = ("--time-limit", "2", "--workers", "1")


@pytest.fixture
def caps(tmp_path: Path) -> str:
    path = tmp_path / "caps.json"
    path.write_text(json.dumps(DOC))
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_bound_asks_about_the_capacity_given(caps: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bound", caps, "--capacity", "90", "--json")
    assert code == 0
    obj = json.loads(out)
    assert (obj["available"], obj["deficit"]) == (90, 10)


@pytest.mark.parametrize(("capacity", "code", "verdict"), [(90, 1, "capacity"), (200, 0, "fits")])
def test_diagnose_asks_about_the_capacity_given(
    caps: str, capsys: pytest.CaptureFixture[str], capacity: int, code: int, verdict: str
) -> None:
    got, out, err = run(capsys, "diagnose", caps, "--capacity", str(capacity), *FAST, "--json")
    assert (got, err) == (code, "")
    obj = json.loads(out)
    assert (obj["verdict"], obj["available"]) == (verdict, capacity)
    got, out, _ = run(capsys, "diagnose", caps, "--capacity", str(capacity), *FAST)
    assert got == code and out.startswith(f"caps: {verdict.upper()}")


def test_solve_asks_about_the_capacity_given(caps: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "solve", caps, "--capacity", "90", *FAST)
    assert code == 1 and out.startswith("infeasible: ")
    code, out, _ = run(capsys, "solve", caps, "--capacity", "200", "--minimize", *FAST)
    assert code == 0
    assert "lowest memory top: 100 (optimal)" in out


def test_report_asks_about_the_capacity_given(
    caps: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "r.html"
    code, out, _ = run(capsys, "report", caps, "--capacity", "90", "-o", str(page), *FAST[:2])
    assert (code, out) == (0, f"wrote {page}: verdict capacity\n")
    assert 'class="verdict v-capacity"' in page.read_text(encoding="utf-8")


def test_several_ranges_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(json.dumps(DOC))
    doc["memory"]["ranges"] = [{"start": 0, "end": 50}, {"start": 50, "end": 100}]
    path = tmp_path / "two.json"
    path.write_text(json.dumps(doc))
    for command in ("bound", "diagnose", "solve"):
        code, out, err = run(capsys, command, str(path), "--capacity", "90")
        assert (code, out) == (2, "")
        assert err == (
            f"tilefit: {path}: --capacity: asks about a memory of one range, and this "
            "capture's has 2: tilefit whatif --capacity-add BYTES (or -BYTES) adds (or "
            "removes) memory at the top of any capture\n"
        )
    code, _, err = run(capsys, "diagnose", str(path), "--capacity", "0")
    assert code == 2 and err.startswith(f"tilefit: {path}: --capacity: must be > 0")


def test_whatif_removes_memory(caps: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "whatif", caps, "--capacity-add", "-10", *FAST)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "caps, what if: FITS -> CAPACITY"
    assert "  --capacity-add -10  memory" in lines
    assert any(line.split()[:3] == ["available", "100", "B"] and "90 B" in line for line in lines)
    code, out, _ = run(capsys, "whatif", caps, "--capacity-add", "-10", *FAST, "--json")
    obj = json.loads(out)
    jsonschema.validate(obj, output_schema("whatif"))
    assert obj["edits"][0]["edit"] == {"capacity_add": -10}
    assert (obj["before"]["available"], obj["after"]["available"]) == (100, 90)
    code, out, err = run(capsys, "whatif", caps, "--capacity-add", "-100")
    assert (code, out) == (2, "")
    assert err == (
        "tilefit: --capacity-add -100: removes 100 B of the 100 B available: nothing would "
        "be left (remove at most 99 B)\n"
    )
