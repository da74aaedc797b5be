"""Bad input never yields a traceback: one line naming the place and the rule, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tilefit import __version__
from tilefit.cli import build_parser, main

GOOD = {
    "format": "tilefit-capture",
    "version": 1,
    "horizon": 4,
    "memory": {"size": 64, "ranges": [{"start": 0, "end": 64}]},
    "requests": [{"id": "a", "size": 8, "start": 0, "end": 4}],
}

BAD_JSON = [
    ('{"format": "tilefit-capture",', "line 1 column 30"),
    (json.dumps({**GOOD, "horizon": "4"}), "horizon: must be an integer"),
    (json.dumps({**GOOD, "extra": 1}), "extra: unknown key"),
    (json.dumps({k: v for k, v in GOOD.items() if k != "memory"}), "memory: required key"),
    (
        json.dumps({**GOOD, "requests": [{"id": "a", "size": 8, "start": 3, "end": 2}]}),
        "requests[0].end: must be > start",
    ),
    (
        json.dumps({**GOOD, "requests": [{"id": "a", "size": 8, "start": 0, "end": 9}]}),
        "requests[0].end: lies beyond the horizon",
    ),
    (
        json.dumps({**GOOD, "requests": GOOD["requests"] * 2}),  # type: ignore[operator]
        "requests[1].id: duplicate id",
    ),
    (
        json.dumps({**GOOD, "conflicts": [["a", "zz"]]}),
        "conflicts[0][1]: unknown id",
    ),
]

BAD_CSV = [
    ("id,lower,upper\na,0,1\n", "line 1: missing column 'size'"),
    ("id,lower,upper,size\na,0,1,x\n", "line 2: column 'size': 'x' is not an integer"),
]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tilefit", *args], capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize(("text", "words"), BAD_JSON)
def test_bad_json_capture_is_one_line_exit_2(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    result = run("bound", str(path))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and str(path) in lines[0]
    assert result.stdout == ""


@pytest.mark.parametrize(("text", "words"), BAD_CSV)
def test_bad_csv_is_one_line_exit_2(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "bad.64.csv"
    path.write_text(text)
    result = run("diagnose", str(path))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0]


def test_missing_file_and_missing_capacity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bound", str(tmp_path / "absent.json")]) == 2
    assert "no such file" in capsys.readouterr().err
    path = tmp_path / "nocap.csv"
    path.write_text("id,lower,upper,size\na,0,1,4\n")
    assert main(["bound", str(path)]) == 2
    assert "--capacity" in capsys.readouterr().err
    assert main(["bound", str(path), "--capacity", "8"]) == 0


def test_version() -> None:
    result = run("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"tilefit {__version__}"


def test_every_command_has_help_with_an_example() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert sub.choices  # every command, not none
    for name, command in sub.choices.items():  # type: ignore[union-attr]
        assert "example" in command.format_help(), name


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["bound"])
    assert info.value.code == 2
    assert main([]) == 2


# Every command that reads one capture, with what else it needs (B: the bundle, G: a capture).
ONE_CAPTURE = {
    "diagnose": ["B"],
    "replay": ["B"],
    "bound": ["B"],
    "whatif": ["B", "--drop", "a"],
    "experiment": ["B"],
    "place": ["B"],
    "solve": ["B"],
    "check": ["B", "placement.json"],
    "plot": ["B", "-o", "map.png"],
    "report": ["B", "-o", "report.html"],
    "convert": ["B", "-o", "out.csv"],
    "diff": ["G", "B"],
}


def test_every_command_that_reads_a_capture_is_listed() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    reading = {
        name
        for name, command in sub.choices.items()  # type: ignore[union-attr]
        if any(a.dest in ("capture", "base") for a in command._actions)
    }
    assert reading == set(ONE_CAPTURE)


@pytest.mark.parametrize("command", sorted(ONE_CAPTURE))
def test_a_bundle_given_for_one_capture_points_to_batch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    bundle = tmp_path / "model.jsonl"
    bundle.write_text(f"{json.dumps(GOOD)}\n{json.dumps({**GOOD, 'name': 'second'})}\n")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(GOOD))
    names = {"B": str(bundle), "G": str(good)}
    args = [names.get(a, str(tmp_path / a) if "." in a else a) for a in ONE_CAPTURE[command]]
    assert main([command, *args]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"tilefit: {bundle}: line 2 column 1: ")
    assert "a bundle of captures" in lines[0] and f"`tilefit batch {bundle}`" in lines[0]


def test_a_bad_csv_row_comes_before_the_missing_capacity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "nocap.csv"
    path.write_text("id,lower,upper,size\na,0,1,4\nb,0,1,x\n")
    assert main(["diagnose", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"tilefit: {path}: line 3: column 'size': 'x' is not an integer\n"
