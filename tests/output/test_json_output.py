"""Every command's ``--json`` on the bundled examples satisfies its shipped schema."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest
from checkout import ROOT

from tilefit.cli import build_parser, main
from tilefit.output.schema import output_schema
from tilefit.schema import json_commands

EXAMPLES = sorted((ROOT / "examples").glob("*.json"))
IDS = [p.stem for p in EXAMPLES]


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    main([*args, "--json"])
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


def _valid(command: str, obj: dict[str, object]) -> None:
    jsonschema.validate(obj, output_schema(command))


def _subcommands() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


def test_the_schema_is_valid_and_names_every_command_with_json() -> None:
    with_json = {
        name
        for name, sub in _subcommands()
        if any("--json" in a.option_strings for a in sub._actions)
    }
    assert with_json == set(json_commands())
    for command in json_commands():
        jsonschema.Draft202012Validator.check_schema(output_schema(command))
    with pytest.raises(KeyError):
        output_schema("plot")


@pytest.mark.parametrize("path", EXAMPLES, ids=IDS)
def test_every_command_on_every_example(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = str(path)
    placement = tmp_path / "p.json"
    for command in ("bound", "replay", "experiment"):
        _valid(command, _json(capsys, command, capture))
    _valid("place", _json(capsys, "place", capture, "-o", str(placement)))
    _valid("place", _json(capsys, "place", capture, "--no-fallback"))
    diagnosis = _json(capsys, "diagnose", capture, "--time-limit", "5", "-o", str(placement))
    _valid("diagnose", diagnosis)
    _valid("diagnose", _json(capsys, "diagnose", capture, "--no-search"))
    if placement.exists():
        _valid("check", _json(capsys, "check", capture, str(placement)))
        moved = json.loads(placement.read_text())
        offsets = moved["offsets"]
        first = next(iter(offsets))
        offsets[first] += 1  # misaligned or overlapping: an invalid placement
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps(moved))
        _valid("check", _json(capsys, "check", capture, str(bad)))
    _valid("solve", _json(capsys, "solve", capture, "--time-limit", "2"))
    _valid("diff", _json(capsys, "diff", capture, capture))


def test_solve_minimize_and_infeasible(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    small = next(p for p in EXAMPLES if p.stem == "small")
    _valid("solve", _json(capsys, "solve", str(small), "--minimize", "--time-limit", "2"))
    conflicted = {
        "format": "tilefit-capture",
        "version": 1,
        "horizon": 2,
        "memory": {"size": 4, "elements": [0, 2], "ranges": [{"start": 0, "end": 4}]},
        "requests": [
            {"id": "a", "size": 2, "start": 0, "end": 1},
            {"id": "b", "size": 2, "start": 1, "end": 2},
            {"id": "c", "size": 2, "start": 0, "end": 2},
        ],
        "conflicts": [["a", "c"], ["b", "c"], ["a", "b"]],
    }
    path = tmp_path / "conflicted.json"
    path.write_text(json.dumps(conflicted))
    solved = _json(capsys, "solve", str(path), "--time-limit", "5")
    _valid("solve", solved)
    assert solved["status"] == "infeasible"


def test_batch_and_synth(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle = tmp_path / "model.jsonl"
    _valid("synth", _json(capsys, "synth", "--tiles", "2", "--seed", "1", "-o", str(bundle)))
    db = tmp_path / "r.sqlite"
    inputs = [str(bundle), *map(str, EXAMPLES)]
    args = ["batch", *inputs, "--db", str(db), "--jobs", "1", "--no-search", "--quiet"]
    _valid("batch", _json(capsys, *args))
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    args = ["batch", str(broken), "--db", str(tmp_path / "e.sqlite"), "--jobs", "1", "--quiet"]
    _valid("batch", _json(capsys, *args))
