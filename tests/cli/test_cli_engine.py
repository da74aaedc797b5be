"""`tilefit replay`, `experiment` and `place`: output, --json keys, -o and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_cases import FRAGMENTED, LIFETIME_ONLY, OVER_CAPACITY, SPLIT_HELPS

from tilefit.cli import main
from tilefit.engine.strategy import STRATEGIES
from tilefit.formats.load import read_placement
from tilefit.formats.save import write_capture
from tilefit.verdicts.check import check


@pytest.fixture
def saved(tmp_path: Path) -> dict[str, str]:
    out = {}
    for capture in (FRAGMENTED, LIFETIME_ONLY, OVER_CAPACITY, SPLIT_HELPS):
        path = tmp_path / f"{capture.name}.json"
        write_capture(capture, path)
        out[capture.name] = str(path)
    return out


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ------------------------------------------------------------------ replay


def test_replay_shows_the_failure_and_the_fitting_attempt(
    saved: dict[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    output = tmp_path / "placement.json"
    code, out, _ = run(capsys, "replay", saved["fragmented"], "-o", str(output))
    assert code == 0
    assert "attempt 1, lifetime/first-fit: FAILED on x after placing 2 units" in out
    assert "x: request, 16 B, alignment 16, class default, steps [1, 10)" in out
    assert "[8, 24)  16 B" in out
    assert "attempt 2, alignment/first-fit: fits, peak address 24" in out
    placement = read_placement(output)
    assert check(FRAGMENTED, placement).valid


def test_replay_all_failing_exits_1_and_reports_reproduction(
    saved: dict[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    output = tmp_path / "none.json"
    code, out, _ = run(capsys, "replay", saved["over"], "-o", str(output))
    assert code == 1
    assert "observed failure: b: reproduced" in out
    assert f"no attempt fits: nothing written to {output}" in out
    assert not output.exists()


def test_replay_json_and_strategy_override(
    saved: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, "replay", saved["fragmented"], "--strategy", "size/best-fit", "--json"
    )
    data = json.loads(out)
    assert code == 0
    assert [a["strategy"] for a in data["attempts"]] == ["size/best-fit"]
    assert data["attempts"][0]["status"] == "fits" and data["reproduced"] is None


def test_replay_bad_strategy_is_a_usage_error(
    saved: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "replay", saved["fragmented"], "--strategy", "age/first-fit")
    assert code == 2 and out == ""
    assert err.startswith("tilefit: --strategy: unknown order 'age'") and err.count("\n") == 1


# -------------------------------------------------------------- experiment


def test_experiment_prints_sixteen_rows_and_sixteen_more_split(
    saved: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "experiment", saved["split-helps"], "--no-times")
    assert code == 0 and len(strategy_rows(out)) == 16
    assert "lifetime/first-fit        fails on S" in out
    code, split_out, _ = run(
        capsys, "experiment", saved["split-helps"], "--split-sequences", "--no-times"
    )
    assert len(strategy_rows(split_out)) == 32
    assert split_out.startswith(out)  # the normal rows first, unchanged
    assert "sequences split into independently placeable members:" in split_out


def test_experiment_output_without_times_is_the_same_every_run(
    saved: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    first = run(capsys, "experiment", saved["fragmented"], "--no-times")
    second = run(capsys, "experiment", saved["fragmented"], "--no-times")
    assert first == second
    assert " ms" not in first[1] and "peak address" in first[1]
    _, timed, _ = run(capsys, "experiment", saved["fragmented"])
    assert " ms" in timed


def test_experiment_json_and_exit_code_when_nothing_fits(
    saved: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "experiment", saved["over"], "--json")
    rows = json.loads(out)["rows"]
    assert code == 1 and len(rows) == 16
    assert all(not r["fits"] and r["failed_id"] == "b" for r in rows)


# ------------------------------------------------------------------ place


def test_place_falls_back_and_writes_the_placement(
    saved: dict[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    output = tmp_path / "placed.json"
    code, out, _ = run(capsys, "place", saved["lifetime-only"], "-o", str(output))
    assert code == 0
    assert "fits with long-lived/first-fit (a further strategy)" in out
    assert "failed first: lifetime/first-fit (on x)" in out
    assert check(LIFETIME_ONLY, read_placement(output)).valid


def test_place_json_keys_and_no_fallback(
    saved: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "place", saved["lifetime-only"], "--json")
    data = json.loads(out)
    assert code == 0 and list(data)[:3] == ["status", "strategy", "placement"]
    assert data["status"] == "fits" and data["strategy"] == "long-lived/first-fit"
    code, out, _ = run(capsys, "place", saved["lifetime-only"], "--no-fallback", "--json")
    data = json.loads(out)
    assert code == 1 and data["status"] == "failed" and data["placement"] is None


def test_place_keeps_production_and_rejects_bad_fallbacks(
    saved: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "place", saved["fragmented"])
    assert code == 0 and "fits with alignment/first-fit (production)" in out
    code, _, err = run(capsys, "place", saved["fragmented"], "--fallback", "lifetime")
    assert code == 2 and "--fallback" in err


def strategy_rows(text: str) -> list[str]:
    names = {s.name for s in STRATEGIES}
    return [line for line in text.splitlines() if line.split(" ")[0] in names]
