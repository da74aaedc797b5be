"""Issue 27, defect 5: one vocabulary in the usage lines, hints that point at the command's
own help, ``synth -o DIR/``, and ``diff`` of two unrelated captures."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest
from checkout import ROOT

from tilefit.cli import COMMANDS, build_parser, main

EXAMPLES = ROOT / "examples"


def _commands() -> dict[str, argparse.ArgumentParser]:
    return build_parser().commands


def _usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, err
    return err.strip()


def test_every_command_is_in_the_parser() -> None:
    assert len(_commands()) == len(COMMANDS)


@pytest.mark.parametrize("name", sorted(_commands()))
def test_a_usage_error_points_at_the_commands_own_help(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # An unknown option was the top parser's error: "(see: tilefit --help)", while a
    # missing argument was the command's: "(see: tilefit diagnose --help)".
    line = _usage_error([name, "--no-such-option"], capsys)
    assert line.startswith("tilefit: ") and line.endswith(f"(see: tilefit {name} --help)"), line


@pytest.mark.parametrize(
    "argv",
    [
        ["diagnose", "c.json", "--bogus"],
        ["diagnose", "c.json", "extra.json"],
        ["diagnose"],
        ["diagnose", "c.json", "--time-limit", "soon"],
        ["solve", "c.json", "--node-limit"],
    ],
)
def test_each_kind_of_usage_error_in_a_command(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert _usage_error(argv, capsys).endswith(f"(see: tilefit {argv[0]} --help)")


@pytest.mark.parametrize("argv", [["frobnicate"], ["--bogus"], ["--bogus", "x"]])
def test_without_a_command_the_hint_is_tilefits_help(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert _usage_error(argv, capsys).endswith("(see: tilefit --help)")


def _options() -> list[tuple[str, str, str]]:
    """(command, option, metavar as the usage line shows it) of every option with a value."""
    found = []
    for name, parser in _commands().items():
        for action in parser._actions:
            if not action.option_strings or action.nargs == 0:
                continue
            if action.choices is not None and action.metavar is None:
                continue
            shown = parser._get_formatter()._metavar_formatter(action, action.dest.upper())(1)[0]
            found.append((name, max(action.option_strings, key=len), shown))
    return found


def test_one_vocabulary_for_bytes_and_seconds() -> None:
    """--capacity CAPACITY beside --capacity-add BYTES, --time-limit S beside SECONDS."""
    options = _options()
    assert options
    for name, option, shown in options:
        if option in ("--capacity", "--capacity-add", "--alignment"):
            assert shown == "BYTES", (name, option, shown)
        if option == "--time-limit":
            assert shown == "SECONDS", (name, option, shown)
        # S was both seconds and a strategy, OUTPUT said nothing of what is written.
        assert shown not in ("S", "S[,S...]", "CAPACITY", "OUTPUT"), (name, option, shown)


def test_synth_takes_a_trailing_slash_for_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for given in ("tiles.v2/", "model.jsonl/", "one.json/"):
        assert main(["synth", "--tiles", "2", "--requests", "8", "-o", given]) == 0
        folder = tmp_path / given.rstrip("/")
        assert folder.is_dir(), given
        assert sorted(p.name for p in folder.iterdir()) == [
            "model-tile0000.json",
            "model-tile0001.json",
        ]
    capsys.readouterr()
    # Without the slash a suffix still names a file, and an unknown one is refused.
    assert main(["synth", "--tiles", "2", "--requests", "8", "-o", "tiles.v3"]) == 2
    assert "or ends in /" in capsys.readouterr().err
    assert not (tmp_path / "tiles.v3").exists()


def test_diff_of_unrelated_captures_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "buffers.1024.csv"
    other.write_text("id,lower,upper,size\nb0,0,2,512\nb1,1,3,256\n")
    assert main(["diff", str(EXAMPLES / "0-0.json"), str(other)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("note: 0 requests matched: no id of OTHER is in BASE"), lines[:3]
    assert main(["diff", str(EXAMPLES / "0-0.json"), str(other), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["matched"] == 0
    # Captures of one tile say nothing of the kind.
    assert main(["diff", str(EXAMPLES / "1-0-baseline.json"), str(EXAMPLES / "1-0.json")]) == 0
    assert "0 requests matched" not in capsys.readouterr().out


def test_diff_of_a_capture_with_itself_matches_every_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "copy.json"
    shutil.copy(EXAMPLES / "0-0.json", copy)
    assert main(["diff", str(EXAMPLES / "0-0.json"), str(copy)]) == 0
    out = capsys.readouterr().out
    assert "note: 0 requests matched" not in out
    assert "80 matched" in out
