"""A user's slips get a hint (issue 38, item 5): a mistyped option or command names the
nearest one, the docs' spelling ``--minimise`` is taken, and a ``--json`` result fed back
in is called what it is, not a capture with unknown keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from checkout import ROOT

from tilefit.cli import main

EXAMPLE = str(ROOT / "examples" / "0-0.json")


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line of a refusal, exit 2 (a usage error exits; bad input returns 2)."""
    try:
        code = main(argv)
    except SystemExit as stopped:
        code = stopped.code  # type: ignore[assignment]
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    return err


def test_a_mistyped_option_names_the_nearest(capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(["solve", EXAMPLE, "--minimzie"], capsys)
    assert err.startswith("tilefit: unrecognized arguments: --minimzie; did you mean --minimize?")
    err = _refused(["solve", EXAMPLE, "--minimzie", "--nod-limit", "3"], capsys)
    assert "did you mean --minimize for --minimzie, --node-limit for --nod-limit?" in err
    assert "did you mean" not in _refused(["solve", EXAMPLE, "--zzz"], capsys)


def test_a_mistyped_command_names_the_nearest(capsys: pytest.CaptureFixture[str]) -> None:
    assert "; did you mean diagnose?" in _refused(["diagnse", EXAMPLE], capsys)


def test_minimise_is_minimize(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["solve", EXAMPLE, "--minimise", "--json", "--time-limit", "5"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["top_lower_bound"] is not None  # minimised


@pytest.mark.parametrize("command", ["diagnose", "solve", "bound"])
def test_a_result_fed_back_is_called_what_it_is(
    command: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    main([command, EXAMPLE, "--json"])
    result = tmp_path / f"{command}.json"
    result.write_text(capsys.readouterr().out, encoding="utf-8")
    err = _refused(["diagnose", str(result)], capsys)
    assert err == f"tilefit: {result}: this is the --json of tilefit {command}, not a capture"


def test_import_to_standard_output_is_refused_not_a_folder_named_dash(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ROOT / "examples" / "tflm" / "streaming.tflite"
    monkeypatch.chdir(tmp_path)
    err = _refused(["import", "tflm", str(model), "-o", "-"], capsys)
    assert err == "tilefit: -o: import writes a folder of captures and placements: name one"
    assert not (tmp_path / "-").exists()
