"""The batch summary: verdicts, rescues, worst deficits, slowest tiles, errors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from batch_helpers import ROWS

from tilefit.batch.row import Row, error_row
from tilefit.batch.store import Store
from tilefit.batch.work import Settings
from tilefit.cli.summary import summary_lines
from tilefit.output.jsonout import summary_json


def _store(tmp_path: Path, rows: Sequence[Row] = ROWS) -> Store:
    store = Store.open(tmp_path / "r.sqlite")
    for row in rows:
        store.record(row)
    store.begin_run(Settings(search=False))
    return store


def test_summary_text(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        lines = summary_lines(store, top=3)
    assert lines == [
        "7 captures in r.sqlite (mode diagnose, strategies only)",
        "",
        "verdict        tiles",
        "fragmentation  3",
        "capacity       2",
        "fits           1",
        "error          1",
        "",
        "not every tile fits: 5 tiles do not fit as captured: fragmentation 3 "
        "(a better placement exists), capacity 2 (no placement can exist); "
        "1 could not be worked out (errors below).",
        "",
        "tiles each strategy rescued (production failed, this strategy fits):",
        "  long-lived/first-fit  2",
        "  size/best-fit         1",
        "",
        "over capacity, by the bytes that must leave the worst window:",
        "  name  tile  must leave  windows  worst window  over  lower bound  available  source",
        "  t6    6     200         1        3             50 "
        "   1,050        1,000      /m.jsonl:t6",
        "  t2    2     160         2        [5, 7)        150"
        "   1,100        1,000      /m.jsonl:t2",
        "",
        "slowest tiles:",
        "  t1  2.00 s  fragmentation  /m.jsonl:t1",
        "  t3  0.50 s  fits           /m.jsonl:t3",
        "  t4  0.50 s  fragmentation  /m.jsonl:t4",
        "",
        "errors (1):",
        "  m-line7 (/m.jsonl:7): line 1 column 2: malformed JSON",
    ]


def test_when_every_tile_fits_it_says_so(tmp_path: Path) -> None:
    with _store(tmp_path, [r for r in ROWS if r.verdict == "fits"]) as store:
        lines = summary_lines(store)
    assert "every tile fits." in lines
    assert not any(line.startswith(("over capacity", "errors", "tiles each")) for line in lines)


def test_more_errors_than_shown(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        store.record(error_row("/x", "zz", "diagnose", "bad"))
        lines = summary_lines(store, top=1)
    assert lines[-2:] == [
        "  m-line7 (/m.jsonl:7): line 1 column 2: malformed JSON",
        "  ... and 1 more (see --csv)",
    ]


def test_summary_json(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        found = summary_json(store, top=2)
    assert list(found) == [
        "captures", "mode", "search", "verdicts", "errors", "rescued",
        "worst_deficits", "slowest", "error_rows", "tpumlir_models",
    ]  # fmt: skip
    assert found["verdicts"] == {"fragmentation": 3, "capacity": 2, "fits": 1}
    assert found["rescued"] == {"long-lived/first-fit": 2, "size/best-fit": 1}
    # t6 is less over than t2, but more must leave it: ranked by what must leave.
    assert [r["name"] for r in found["worst_deficits"]] == ["t6", "t2"]
    t6 = found["worst_deficits"][0]
    assert (t6["windows"], t6["must_leave"]) == (1, 200)
    assert t6["worst_window"] == {"start": 3, "end": 4, "excess": 50}
    assert found["slowest"][0]["worst_window"] is None  # t1 fits: no window
    assert found["error_rows"][0]["error"] == "line 1 column 2: malformed JSON"


def test_two_tiles_with_one_name_are_told_apart_by_source(tmp_path: Path) -> None:
    twin = Row(
        "/a/x.json",
        "x",
        0,
        "diagnose",
        "fits",
        None,
        10,
        20,
        0,
        0,
        0,
        0,
        None,
        None,
        None,
        None,
        3.0,
    )
    twins = [twin, replace(twin, source="/b/x.json", seconds=2.0)]
    with _store(tmp_path, twins) as store:
        lines = summary_lines(store)
    slow = lines[lines.index("slowest tiles:") + 1 :]
    assert any("/a/x.json" in line for line in slow)
    assert any("/b/x.json" in line for line in slow)


def test_one_capture_is_named_in_the_singular(tmp_path: Path) -> None:
    with _store(tmp_path, ROWS[:1]) as store:
        assert summary_lines(store, top=3)[0] == (
            "1 capture in r.sqlite (mode diagnose, strategies only)"
        )
