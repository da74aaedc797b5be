"""`tilefit check` and `tilefit bound`: output, --json keys and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tilefit.cli import main
from tilefit.formats.save import write_capture, write_placement
from tilefit.model.capture import Capture, Conflict, Memory, Range, Request, Sequence
from tilefit.model.placement import Placement

CAPTURE = Capture(
    name="tile",
    horizon=10,
    memory=Memory(
        size=100,
        ranges=(Range(0, 80, "main"), Range(80, 100, "host", ("scratch",))),
        elements=(0, 80),
    ),
    requests=(
        Request("w0", 30, 0, 10, alignment=2, cls="resident", label="weights"),
        Request("w1", 30, 0, 10, alignment=2, cls="resident"),
        Request("s", 20, 2, 5, cls="scratch"),
        Request("a", 10, 3, 6),
    ),
    sequences=(Sequence("W", ("w0", "w1")),),
    conflicts=(Conflict("s", "a"),),
)
VALID = {"w0": 0, "w1": 30, "s": 80, "a": 60}


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    capture, placement = tmp_path / "tile.json", tmp_path / "tile.placement.json"
    write_capture(CAPTURE, capture)
    write_placement(Placement("tile", VALID), placement)
    return capture, placement


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_valid(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    capture, placement = files
    assert run(capsys, "check", str(capture), str(placement)) == (0, "valid\n", "")
    code, out, _ = run(capsys, "check", str(capture), str(placement), "--json")
    assert code == 0
    assert json.loads(out)["valid"] is True
    assert json.loads(out)["violations"] == []


def test_check_invalid_lists_every_violation(
    tmp_path: Path, files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    capture, _ = files
    placement = tmp_path / "bad.json"
    # a has no offset, w1 is misaligned and off its sequence, s sits on both weights.
    write_placement(Placement("tile", {"w0": 0, "w1": 31, "s": 20, "ghost": 1}), placement)
    code, out, err = run(capsys, "check", str(capture), str(placement))
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert lines[0] == "invalid: 1 missing, 1 unknown, 1 alignment, 2 overlap, 1 sequence"
    assert lines[1].split() == ["kind", "ids", "detail"]
    assert [line.split()[0] for line in lines[2:]] == [
        "missing",
        "unknown",
        "alignment",
        "overlap",
        "overlap",
        "sequence",
    ]

    code, out, _ = run(capsys, "check", str(capture), str(placement), "--json")
    assert code == 1
    obj = json.loads(out)
    assert list(obj)[:2] == ["valid", "violations"]
    assert obj["valid"] is False
    assert obj["violations"][0] == {
        "kind": "missing",
        "ids": ["a"],
        "detail": "a (10 B, class default, steps [3, 6)) has no offset",
    }
    assert [v["ids"] for v in obj["violations"] if v["kind"] == "overlap"] == [
        ["w0", "s"],
        ["w1", "s"],
    ]
    assert obj["counts"]["overlap"] == 2


def test_check_minimalloc_csv_placement(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capture = tmp_path / "two.64.csv"
    capture.write_text("id,lower,upper,size\n0,0,4,32\n1,2,6,32\n")
    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    good.write_text("id,lower,upper,size,offset\n0,0,4,32,0\n1,2,6,32,32\n")
    bad.write_text("id,lower,upper,size,offset\n0,0,4,32,0\n1,2,6,32,16\n")
    assert run(capsys, "check", str(capture), str(good))[:2] == (0, "valid\n")
    code, out, _ = run(capsys, "check", str(capture), str(bad), "--json")
    assert code == 1
    assert [(v["kind"], v["ids"]) for v in json.loads(out)["violations"]] == [
        ("overlap", ["0", "1"])
    ]
    # The capacity flag applies to a CSV capture whose name does not carry it.
    plain = tmp_path / "two.csv"
    plain.write_text(capture.read_text())
    code, out, _ = run(capsys, "check", str(plain), str(good), "--capacity", "48")
    assert code == 1
    assert "range" in out


def test_check_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    capture, _ = files
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    code, out, err = run(capsys, "check", str(capture), str(broken))
    assert (code, out) == (2, "")
    assert err.startswith("tilefit: ") and err.count("\n") == 1
    code, _, err = run(capsys, "check", str(capture), str(tmp_path / "absent.json"))
    assert code == 2 and err.count("\n") == 1


def test_bound_human(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    capture, _ = files
    code, out, err = run(capsys, "bound", str(capture))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].split() == ["available", "storage", "100", "B"]
    assert lines[1].split() == ["live", "storage", "lower", "bound", "90", "B", "at", "step", "3"]
    assert lines[2].split()[:3] == ["aligned", "lower", "bound"]
    assert lines[3].split() == ["deficit", "0", "B"]
    assert lines[4].split() == ["aligned", "deficit", "0", "B"]
    assert lines[5].split() == ["support-aware", "deficit", "0", "B"]
    assert lines[6] == (
        "  tightest: step 3, 70 B live of resident, default, "
        "which may use only [0, 80) = 80 B (ranges main)"
    )
    assert lines[7] == "overloaded steps: none (no step needs more than its requests may use)"
    assert lines[8] == "contributors at step 3: 4 requests, 90 B"
    assert lines[9:] == [
        "  class resident: 60 B",
        "    id  size  class     label",
        "    w0  30 B  resident  weights",
        "    w1  30 B  resident  -",
        "  class scratch: 20 B",
        "    id  size  class    label",
        "    s   20 B  scratch  -",
        "  class default: 10 B",
        "    id  size  class    label",
        "    a   10 B  default  -",
    ]


def test_bound_json_and_exit_0_with_a_deficit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "over.json"
    heavy = Request("big", 75, 0, 10, cls="resident")
    requests = (*(r for r in CAPTURE.requests if r.cls != "scratch"), heavy)
    write_capture(Capture("over", 10, CAPTURE.memory, requests), path)
    code, out, _ = run(capsys, "bound", str(path), "--json")
    assert code == 0
    obj = json.loads(out)
    assert list(obj)[:6] == [
        "available",
        "lower_bound",
        "peak_step",
        "deficit",
        "support_deficit",
        "contributors",
    ]
    assert (obj["available"], obj["lower_bound"], obj["peak_step"]) == (100, 145, 3)
    assert obj["deficit"] == 45
    assert obj["support_deficit"] == 65  # none of it may use the 20 B scratch-only host
    assert obj["support"]["union"] == [{"start": 0, "end": 80}]
    assert [(c["id"], c["size"], c["class"]) for c in obj["contributors"]] == [
        ("big", 75, "resident"),
        ("w0", 30, "resident"),
        ("w1", 30, "resident"),
        ("a", 10, "default"),
    ]


def test_bound_output_is_the_same_bytes_every_time(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    capture, _ = files
    for flags in ((), ("--json",)):
        first = run(capsys, "bound", str(capture), *flags)
        assert run(capsys, "bound", str(capture), *flags) == first


def test_bound_of_a_minimalloc_csv_packed_to_its_capacity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # MiniMalloc's format, made here: three buffers live together fill the 1,024 B exactly
    rows = ["id,lower,upper,size", "0,0,10,512", "1,2,8,256", "2,4,6,256", "3,10,12,768"]
    csv = tmp_path / "packed.1024.csv"
    csv.write_text("\n".join(rows) + "\n")
    code, out, _ = run(capsys, "bound", str(csv), "--json")
    obj = json.loads(out)
    assert (code, obj["lower_bound"], obj["available"], obj["peak_step"]) == (0, 1024, 1024, 4)
