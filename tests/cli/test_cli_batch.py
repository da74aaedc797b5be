"""`tilefit batch`: a run, its summary and CSV, resume, refusals, exit codes, interruption."""

from __future__ import annotations

import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tilefit.batch.bundle import write_bundle
from tilefit.cli import main
from tilefit.generate.synth import Recipe, synth_model

SMALL = Recipe(requests=40, layers=4)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    path = tmp_path / "m.jsonl"
    write_bundle(synth_model(tiles=6, seed=4, base=SMALL), path)
    return path


def _rows(db: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as conn:
        return list(conn.execute("SELECT source, name FROM results ORDER BY source"))


def test_a_run_prints_the_summary_it_stores(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, out_csv = tmp_path / "r.sqlite", tmp_path / "rows.csv"
    code, out, err = run(capsys, "batch", str(bundle), "--db", str(db), "--jobs", "2",
                         "--no-search", "--csv", str(out_csv))  # fmt: skip
    assert (code, err) == (0, "")
    assert out.startswith("6 captures in r.sqlite (mode diagnose, strategies only)\n")
    assert [name for _, name in _rows(db)] == [f"model-tile{k:04d}" for k in range(6)]
    with out_csv.open() as data:
        table = list(csv.DictReader(data))
    assert [r["name"] for r in table] == [f"model-tile{k:04d}" for k in range(6)]
    assert all(r["verdict"] and not r["error"] for r in table)
    again = run(capsys, "batch", "--summary", str(db))
    assert again == (0, out, "")


def test_a_second_run_must_say_resume_or_overwrite(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.sqlite"
    args = ("batch", str(bundle), "--db", str(db), "--jobs", "1", "--quiet")
    assert run(capsys, *args, "--mode", "replay")[0] == 0
    code, _, err = run(capsys, *args, "--mode", "replay")
    assert code == 2 and "already holds 6 rows: add --resume" in err
    assert run(capsys, *args, "--mode", "replay", "--resume") == (0, "", "")
    code, _, err = run(capsys, *args, "--resume")
    assert code == 2 and "recorded with --mode replay" in err
    assert run(capsys, *args, "--overwrite", "--no-search")[0] == 0
    assert len(_rows(db)) == 6


def test_error_rows_make_exit_code_1(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with bundle.open("a") as out:
        out.write("not json\n")
    db = tmp_path / "r.sqlite"
    code, out, _ = run(capsys, "batch", str(bundle), "--db", str(db), "--jobs", "2",
                       "--no-search", "--json")  # fmt: skip
    summary = json.loads(out)
    assert code == 1
    assert (summary["captures"], summary["errors"]) == (7, 1)
    assert summary["error_rows"][0]["name"] == "m-line7"


@pytest.mark.parametrize(
    "argv",
    [
        ["batch", "m.jsonl"],
        ["batch", "--db", "r.sqlite"],
        ["batch", "m.jsonl", "--db", "r.sqlite", "--jobs", "0"],
        ["batch", "m.jsonl", "--db", "r.sqlite", "--time-limit", "0"],
        ["batch", "m.jsonl", "--db", "r.sqlite", "--time-limit", "inf"],
        ["batch", "m.jsonl", "--db", "r.sqlite", "--mode", "replay", "--no-search"],
        ["batch", "m.jsonl", "--db", "r.sqlite", "--jobs", "2", "--scheduler", "tcp://x:1"],
        ["batch", "missing.json", "--db", "r.sqlite"],
        ["batch", "empty", "--db", "r.sqlite"],
        ["batch", "--summary", "r.sqlite", "m.jsonl"],
        ["batch", "--summary", "missing.sqlite"],
    ],
)
def test_usage_errors_exit_2(
    argv: list[str],
    bundle: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith("tilefit: ") and len(err.splitlines()) == 1


# --------------------------------------------------------------------------- interruption


def interruptible() -> None:
    """In the child: SIGINT as a terminal delivers it, even when the suite was started with
    SIGINT ignored (a script's background job), which tilefit, like any Unix tool, keeps."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill"])
def test_an_interrupted_run_resumes_to_one_row_each(
    stop: signal.Signals, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C reaches the whole process group, workers included; a kill only the runner."""
    bundle, db = tmp_path / "m.jsonl", tmp_path / "r.sqlite"
    total = write_bundle(synth_model(tiles=300, seed=5, base=SMALL), bundle)
    argv = ["batch", str(bundle), "--db", str(db), "--jobs", "1", "--no-search", "--quiet"]
    process = subprocess.Popen(
        [sys.executable, "-c", "from tilefit.cli import entry; entry()", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=interruptible,
    )
    try:
        deadline = time.monotonic() + 60
        while not db.exists() or _count(db) < 5:
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        if stop == signal.SIGINT:
            os.killpg(process.pid, stop)
        else:
            process.send_signal(stop)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if stop == signal.SIGINT:
        assert process.returncode == 130 and "rerun with --resume" in err
        assert "Traceback" not in err
    else:
        assert process.returncode == -signal.SIGKILL
    done = _count(db)
    assert 5 <= done < total
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    code, _, _ = run(capsys, *argv, "--resume")
    assert code == 0
    rows = _rows(db)
    assert len(rows) == total
    assert sorted(name for _, name in rows) == [f"model-tile{k:04d}" for k in range(total)]
    assert len({source for source, _ in rows}) == total


def _count(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM results").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0
