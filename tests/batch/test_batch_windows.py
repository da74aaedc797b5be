"""The batch and the overloaded windows: each row counts a tile's windows and names its
worst, the summary ranks tiles by the bytes that must leave, and a database written
before these columns existed is refused in one line (or made anew with --overwrite)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from checkout import ROOT

from tilefit.batch.inputs import Job
from tilefit.batch.store import SCHEMA_VERSION, Store
from tilefit.batch.work import Overload, Settings, work
from tilefit.bounds.deficit import bound
from tilefit.cli import main
from tilefit.model.capture import Capture, Memory, Range, Request

EXAMPLES = ROOT / "examples"


def _job(name: str) -> Job:
    path = EXAMPLES / f"{name}.json"
    return Job(str(path), name, path.name, path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("mode", ["diagnose", "replay", "place"])
def test_a_row_counts_the_windows_and_names_the_worst(mode: str) -> None:
    over = work(_job("1-0"), Settings(mode=mode, search=False))
    assert over.error is None
    assert (over.windows, over.must_leave) == (4, 16_360)
    assert (over.worst_start, over.worst_end, over.worst_excess) == (54, 55, 16_328)
    fits = work(_job("0-0"), Settings(mode=mode, search=False))
    assert (fits.windows, fits.must_leave) == (0, 0)
    assert (fits.worst_start, fits.worst_end, fits.worst_excess) == (None, None, None)


def test_the_worst_window_is_the_earliest_of_those_most_must_leave() -> None:
    # 110 B live at step 0 and again at step 2, of 100 B: two windows, 10 B over each.
    requests = (
        Request("a", 60, 0, 1),
        Request("b", 50, 0, 1),
        Request("c", 60, 2, 3),
        Request("d", 50, 2, 3),
        Request("e", 30, 4, 5),
    )
    capture = Capture("two", 5, Memory(100, (Range(0, 100),)), requests)
    assert Overload.of(bound(capture)) == Overload(2, 10, 0, 1, 10)
    bigger = Capture("two", 5, capture.memory, (*requests[:3], Request("d", 55, 2, 3)))
    assert Overload.of(bound(bigger)) == Overload(2, 15, 2, 3, 15)


def test_the_summary_ranks_tiles_by_what_must_leave(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.sqlite"
    inputs = [str(EXAMPLES / f"{name}.json") for name in ("0-0", "1-0")]
    args = ["batch", *inputs, "--db", str(db), "--jobs", "1", "--no-search"]
    assert main(args) == 0
    out = capsys.readouterr().out.splitlines()
    at = out.index("over capacity, by the bytes that must leave the worst window:")
    assert out[at + 1].split() == [
        "name", "tile", "must", "leave", "windows", "worst", "window", "over", "lower", "bound",
        "available", "source",
    ]  # fmt: skip
    assert out[at + 2].split() == [
        "1-0", "0", "16,360", "4", "54", "16,328", "515,200", "498,872", inputs[1],
    ]  # fmt: skip
    assert len(out) == at + 3 or out[at + 3] == ""  # 0-0 is not over capacity


_SCHEMA_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE results (source TEXT PRIMARY KEY, name TEXT NOT NULL, tile INTEGER,
  mode TEXT NOT NULL, verdict TEXT, strategy TEXT, lower_bound INTEGER, available INTEGER,
  deficit INTEGER, support_deficit INTEGER, failed_id TEXT, seconds REAL NOT NULL, error TEXT);
INSERT INTO meta VALUES ('schema', '1'), ('mode', 'diagnose'), ('search', '0'),
  ('time_limit', '10.0');
INSERT INTO results VALUES ('/m/t.json', 't', 0, 'diagnose', 'capacity', NULL, 1100, 1000,
  100, 100, 'w', 0.5, NULL);
"""


def _old_database(path: Path, schema: str = "1") -> None:
    with sqlite3.connect(path) as db:
        db.executescript(_SCHEMA_1.replace("('schema', '1')", f"('schema', '{schema}')"))
    db.close()


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("tilefit: "), err
    return err


def test_a_database_of_the_previous_version_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old.sqlite"
    _old_database(old)
    said = (
        f"tilefit: {old}: written by an older tilefit (results schema 1; this one reads "
        f"{SCHEMA_VERSION}): use a new --db, or --overwrite to start again\n"
    )
    assert main(["batch", "--summary", str(old)]) == 2
    assert _one_line(capsys) == said
    capture = str(EXAMPLES / "0-0.json")
    for again in ("--resume", None):
        args = ["batch", capture, "--db", str(old), "--jobs", "1", "--quiet"]
        assert main([*args, again] if again else args) == 2
        assert _one_line(capsys) == said
    # Refused, and untouched: its one row is still there, under schema 1.
    with sqlite3.connect(old) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == ("1",)
        assert db.execute("SELECT COUNT(*) FROM results").fetchone() == (1,)
    db.close()


def test_overwrite_makes_a_database_of_the_previous_version_anew(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old.sqlite"
    _old_database(old)
    args = ["batch", str(EXAMPLES / "1-0.json"), "--db", str(old), "--jobs", "1", "--quiet"]
    assert main([*args, "--no-search", "--overwrite"]) == 0
    with Store.open(old, create=False) as store:
        (row,) = store.rows()
        assert (row.name, row.windows, row.must_leave, row.worst_start) == ("1-0", 4, 16_360, 54)


def test_a_database_of_a_newer_version_is_refused_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    newer = tmp_path / "newer.sqlite"
    _old_database(newer, schema=str(int(SCHEMA_VERSION) + 1))
    assert main(["batch", "--summary", str(newer)]) == 2
    assert "written by a newer tilefit (results schema 3; this one reads 2)" in _one_line(capsys)
    broken = tmp_path / "broken.sqlite"
    _old_database(broken, schema="x")
    assert main(["batch", "--summary", str(broken)]) == 2
    assert "not a tilefit results database (it has no schema version)" in _one_line(capsys)
