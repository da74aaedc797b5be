"""Batch results in SQLite: one row per capture, written as soon as it finishes.

Each row is its own transaction in a write-ahead-logged database, so a run
stopped at any moment (Ctrl-C, a killed process) leaves every finished row
and no partial one. Rows are keyed by their source, which makes resuming a
matter of skipping recorded keys and makes a doubled row impossible. The
settings of the run (mode, search, time limit) are kept alongside, so a
resumed run cannot silently mix answers to different questions.

The table's columns have a version (``SCHEMA_VERSION``, in table ``meta``).
A database written with other columns is refused with one line saying so,
never half-read: its rows lack answers this version records (a resumed run
would mix them); ``--overwrite`` starts it again.
"""

from __future__ import annotations

import csv
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from tilefit.batch.row import COLUMNS, Row
from tilefit.batch.work import Settings
from tilefit.formats.save import atomic_path
from tilefit.model.errors import InputError

SCHEMA_VERSION = "2"  # 2: the overloaded windows (windows, must_leave, worst_*)

SUMMARY_TOP = 10
"""How many rows the summary lists of each kind (worst, slowest, errors)."""

_CREATE = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS results (
    source TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    tile INTEGER,
    mode TEXT NOT NULL,
    verdict TEXT,
    strategy TEXT,
    lower_bound INTEGER,
    available INTEGER,
    deficit INTEGER,
    support_deficit INTEGER,
    windows INTEGER,
    must_leave INTEGER,
    worst_start INTEGER,
    worst_end INTEGER,
    worst_excess INTEGER,
    failed_id TEXT,
    seconds REAL NOT NULL,
    error TEXT
)""",
)
_INSERT = (
    f"INSERT INTO results ({', '.join(COLUMNS)}) VALUES ({', '.join('?' for _ in COLUMNS)}) "
    "ON CONFLICT(source) DO NOTHING"
)
_SELECT = f"SELECT {', '.join(COLUMNS)} FROM results"
_BY_NAME = " ORDER BY name, source"


class Store:
    """An open results database."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self._db = db
        self.path = path

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True, overwrite: bool = False) -> Store:
        """Open (or create) a results database; InputError when it is not one.

        A database of another schema version is refused, unless ``overwrite``
        (which is about to forget every row anyway): then it is made anew.
        """
        where = Path(path)
        if not create and not where.is_file():
            raise InputError("", "no such results database", str(where))
        try:
            db = sqlite3.connect(where, isolation_level=None, timeout=30.0)
        except sqlite3.Error as error:
            raise InputError("", f"cannot open: {error}", str(where)) from None
        store = cls(db, where)
        try:
            store._prepare(overwrite)
        except InputError:
            db.close()
            raise
        except sqlite3.OperationalError as error:  # locked, read-only, ...
            db.close()
            raise InputError("", f"cannot use the results database: {error}", str(where)) from None
        except sqlite3.DatabaseError as error:
            db.close()
            raise InputError("", f"not a tilefit results database ({error})", str(where)) from None
        return store

    def _prepare(self, overwrite: bool) -> None:
        tables = {
            r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        if tables and not {"meta", "results"} <= tables:
            raise sqlite3.DatabaseError("it holds other tables")
        found = self._meta("schema") if tables else SCHEMA_VERSION
        if found is None or not found.isdigit():
            raise sqlite3.DatabaseError("it has no schema version")
        self._db.execute("PRAGMA journal_mode=WAL")
        # WAL with NORMAL sync survives a killed process; power loss may drop the
        # last rows, which --resume then redoes.
        self._db.execute("PRAGMA synchronous=NORMAL")
        if found != SCHEMA_VERSION:
            if not overwrite:
                who = "an older" if int(found) < int(SCHEMA_VERSION) else "a newer"
                raise InputError(
                    "",
                    f"written by {who} tilefit (results schema {found}; this one reads "
                    f"{SCHEMA_VERSION}): use a new --db, or --overwrite to start again",
                    str(self.path),
                )
            with self._transaction():
                self._db.execute("DROP TABLE results")
                self._db.execute("DELETE FROM meta")
        with self._transaction():
            for statement in _CREATE:
                self._db.execute(statement)
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _meta(self, key: str) -> str | None:
        found = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if found is None else str(found[0])

    # ----------------------------------------------------------------- writing

    def settings(self) -> Settings | None:
        """The settings the rows were recorded with; None before the first run."""
        mode = self._meta("mode")
        if mode is None:
            return None
        return Settings(
            mode=mode,
            time_limit=float(self._meta("time_limit") or "nan"),
            search=self._meta("search") == "1",
        )

    def begin_run(self, settings: Settings) -> None:
        """Record the settings of a run about to start."""
        values = {
            "mode": settings.mode,
            "time_limit": repr(settings.time_limit),
            "search": "1" if settings.search else "0",
        }
        with self._transaction():
            for key, value in values.items():
                self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def record(self, row: Row) -> None:
        """Add one finished capture's row, in its own transaction."""
        with self._transaction():
            self._db.execute(_INSERT, row.values())

    def clear(self) -> None:
        """Forget every row and the run's settings (``--overwrite``)."""
        with self._transaction():
            self._db.execute("DELETE FROM results")
            self._db.execute("DELETE FROM meta WHERE key != 'schema'")

    # ----------------------------------------------------------------- reading

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM results").fetchone()[0])

    def recorded(self) -> set[str]:
        """The sources that have a row."""
        return {r[0] for r in self._db.execute("SELECT source FROM results")}

    def rows(self) -> list[Row]:
        """Every row, by name (then source)."""
        return [Row(*r) for r in self._db.execute(_SELECT + _BY_NAME)]

    def verdicts(self) -> list[tuple[str, int]]:
        """How many rows without error hold each verdict, most first."""
        return self._counts("verdict", "error IS NULL")

    def rescued(self) -> list[tuple[str, int]]:
        """For each strategy, the tiles whose production failed and that it fits, most first."""
        return self._counts("strategy", "failed_id IS NOT NULL AND strategy IS NOT NULL")

    def worst_deficits(self, limit: int) -> list[Row]:
        """Rows over capacity somewhere, the most bytes that must leave first.

        Ranked by what must leave the worst window (its excess plus alignment
        padding), then by the deficit; a row with a deficit always has a window.
        """
        deficit = "MAX(COALESCE(deficit, 0), COALESCE(support_deficit, 0))"
        return self._rows(
            f"COALESCE(must_leave, 0) > 0 OR {deficit} > 0",
            f"COALESCE(must_leave, 0) DESC, {deficit} DESC",
            limit,
        )

    def slowest(self, limit: int) -> list[Row]:
        return self._rows("1", "seconds DESC", limit)

    def errors(self, limit: int) -> list[Row]:
        return self._rows("error IS NOT NULL", "name", limit)

    def error_count(self) -> int:
        sql = "SELECT COUNT(*) FROM results WHERE error IS NOT NULL"
        return int(self._db.execute(sql).fetchone()[0])

    def _rows(self, where: str, order: str, limit: int) -> list[Row]:
        sql = f"{_SELECT} WHERE {where} ORDER BY {order}, name, source LIMIT ?"
        return [Row(*r) for r in self._db.execute(sql, (limit,))]

    def _counts(self, column: str, where: str) -> list[tuple[str, int]]:
        sql = (
            f"SELECT {column}, COUNT(*) AS n FROM results WHERE {where} "
            f"GROUP BY {column} ORDER BY n DESC, {column}"
        )
        return [(str(value), int(n)) for value, n in self._db.execute(sql)]

    def total_seconds(self) -> float:
        return float(
            self._db.execute("SELECT COALESCE(SUM(seconds), 0) FROM results").fetchone()[0]
        )

    def export_csv(self, path: str | Path) -> int:
        """Write every row to a CSV file (header first, by name), whole or not at all;
        returns how many rows."""
        rows = self.rows()
        with atomic_path(path) as temp, temp.open("w", encoding="utf-8", newline="") as out:
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(COLUMNS)
            for row in rows:
                writer.writerow(_cell(v, c) for v, c in zip(row.values(), COLUMNS, strict=True))
        return len(rows)

    # ----------------------------------------------------------------- lifetime

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


def _cell(value: object, column: str) -> str:
    if value is None:
        return ""
    if column == "seconds" and isinstance(value, float):
        return f"{value:.3f}"
    return str(value)
