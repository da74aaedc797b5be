"""Batch results in SQLite: one transaction per row, keyed by source, queries, CSV."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from batch_helpers import ROWS, sample_row

from tilefit.batch.store import Store
from tilefit.batch.work import Settings
from tilefit.model.errors import InputError


@pytest.fixture
def store(tmp_path: Path) -> Store:
    opened = Store.open(tmp_path / "r.sqlite")
    for row in ROWS:
        opened.record(row)
    return opened


def test_rows_come_back_by_name_and_keyed_by_source(store: Store) -> None:
    assert [r.name for r in store.rows()] == ["m-line7", "t1", "t2", "t3", "t4", "t5", "t6"]
    assert store.rows()[1] == ROWS[1]
    assert store.recorded() == {r.source for r in ROWS}
    store.record(replace(ROWS[0], verdict="capacity"))  # the same source again
    assert store.count() == len(ROWS)
    assert next(r for r in store.rows() if r.name == "t3").verdict == "fits"


def test_the_database_is_write_ahead_logged(store: Store, tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "r.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_failed_insert_leaves_nothing_half_written(store: Store) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        store.record(replace(sample_row("t9"), name=None))  # type: ignore[arg-type]
    assert store.count() == len(ROWS)
    store.record(sample_row("t9"))
    assert store.count() == len(ROWS) + 1


def test_settings_survive_and_clear_forgets(store: Store, tmp_path: Path) -> None:
    assert store.settings() is None
    store.begin_run(Settings(mode="diagnose", time_limit=2.5, search=False))
    store.close()
    with Store.open(tmp_path / "r.sqlite", create=False) as again:
        assert again.settings() == Settings(mode="diagnose", time_limit=2.5, search=False)
        assert again.count() == len(ROWS)
        again.clear()
        assert (again.count(), again.settings()) == (0, None)


def test_summary_queries(store: Store) -> None:
    assert store.verdicts() == [("fragmentation", 3), ("capacity", 2), ("fits", 1)]
    assert store.rescued() == [("long-lived/first-fit", 2), ("size/best-fit", 1)]
    assert [r.name for r in store.worst_deficits(5)] == ["t6", "t2"]  # by what must leave
    assert [r.name for r in store.slowest(3)] == ["t1", "t3", "t4"]
    assert [r.name for r in store.errors(5)] == ["m-line7"]
    assert store.error_count() == 1


def test_csv_export(store: Store, tmp_path: Path) -> None:
    out = tmp_path / "rows.csv"
    assert store.export_csv(out) == len(ROWS)
    lines = out.read_text().splitlines()
    assert lines[0] == (
        "source,name,tile,mode,verdict,strategy,lower_bound,available,deficit,"
        "support_deficit,windows,must_leave,worst_start,worst_end,worst_excess,failed_id,"
        "seconds,error"
    )
    assert lines[1] == (
        "/m.jsonl:7,m-line7,,diagnose,,,,,,,,,,,,,0.000,line 1 column 2: malformed JSON"
    )
    assert lines[2] == (
        "/m.jsonl:t1,t1,1,diagnose,fragmentation,long-lived/first-fit,900,1000,0,0,0,0,,,,w,2.000,"
    )
    assert (
        lines[3] == "/m.jsonl:t2,t2,2,diagnose,capacity,,1100,1000,100,150,2,160,5,7,150,w,0.250,"
    )


def test_what_is_not_a_results_database_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such results database"):
        Store.open(tmp_path / "missing.sqlite", create=False)
    assert not (tmp_path / "missing.sqlite").exists()
    (tmp_path / "text.sqlite").write_text("hello, this is not SQLite at all" * 10)
    with pytest.raises(InputError, match="not a tilefit results database"):
        Store.open(tmp_path / "text.sqlite")
    other = sqlite3.connect(tmp_path / "other.sqlite")
    other.execute("CREATE TABLE people (name TEXT)")
    other.commit()
    other.close()
    with pytest.raises(InputError, match="not a tilefit results database"):
        Store.open(tmp_path / "other.sqlite")
