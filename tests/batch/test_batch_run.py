"""A batch run: refuse to mix results, skip what is recorded, lose nothing on a crash."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest
from batch_helpers import misbehaving_work

from tilefit.batch.bundle import write_bundle
from tilefit.batch.inputs import Job, Source, expand
from tilefit.batch.row import Row
from tilefit.batch.run import Record, prepare, run_batch
from tilefit.batch.runner import LocalRunner
from tilefit.batch.store import Store
from tilefit.batch.work import Settings, work
from tilefit.cli import main
from tilefit.formats.save import write_capture
from tilefit.generate.synth import Recipe, make_tile
from tilefit.model.errors import InputError

SETTINGS = Settings(search=False)


def inline(jobs: Iterable[Job], settings: Settings, record: Record) -> None:
    for job in jobs:
        record(work(job, settings))


class Interrupted:
    """A runner that is stopped (Ctrl-C) after ``after`` rows."""

    def __init__(self, after: int) -> None:
        self.after = after

    def __call__(self, jobs: Iterable[Job], settings: Settings, record: Record) -> None:
        for count, job in enumerate(jobs):
            if count == self.after:
                raise KeyboardInterrupt
            record(work(job, settings))


@pytest.fixture
def model(tmp_path: Path) -> list[Source]:
    tiles = [make_tile(Recipe(requests=40, layers=4, seed=k), name=f"t{k}") for k in range(8)]
    path = tmp_path / "m.jsonl"
    write_bundle(tiles, path)
    with path.open("a") as out:
        out.write('{"format": "tilefit-capture", "version": 1,\n')  # a malformed line
    return expand([str(path)])


def _one_row_each(store: Store, sources: list[Source]) -> list[Row]:
    rows = store.rows()
    assert sorted(r.source for r in rows) == sorted(s.key for s in sources)
    return rows


def test_a_run_records_every_capture_and_the_malformed_line(
    tmp_path: Path, model: list[Source]
) -> None:
    with Store.open(tmp_path / "r.sqlite") as store:
        prepare(store, SETTINGS, resume=False, overwrite=False)
        counts = run_batch(model, store, SETTINGS, inline)
        rows = _one_row_each(store, model)
    assert (counts.sources, counts.skipped, counts.recorded, counts.errors) == (9, 0, 9, 1)
    (bad,) = [r for r in rows if r.error is not None]
    assert bad.name == "m-line9" and "malformed JSON" in (bad.error or "")


def test_an_unreadable_file_is_an_error_row(tmp_path: Path) -> None:
    write_capture(make_tile(Recipe(requests=30, layers=3), name="good"), tmp_path / "good.json")
    (tmp_path / "bad.json").write_bytes(b"\xff")
    sources = expand([str(tmp_path)])
    with Store.open(tmp_path / "r.sqlite") as store:
        run_batch(sources, store, SETTINGS, inline)
        rows = {r.name: r for r in store.rows()}
    assert rows["good"].verdict == "fits"
    assert rows["bad"].error is not None and "not UTF-8" in rows["bad"].error


def test_an_interrupted_run_resumes_to_one_row_each(tmp_path: Path, model: list[Source]) -> None:
    with Store.open(tmp_path / "r.sqlite") as store:
        prepare(store, SETTINGS, resume=False, overwrite=False)
        with pytest.raises(KeyboardInterrupt):
            run_batch(model, store, SETTINGS, Interrupted(after=3))
        assert store.count() == 3
        with pytest.raises(InputError, match="add --resume to skip them, or --overwrite"):
            prepare(store, SETTINGS, resume=False, overwrite=False)
        prepare(store, SETTINGS, resume=True, overwrite=False)
        counts = run_batch(model, store, SETTINGS, inline)
        assert (counts.skipped, counts.recorded) == (3, 6)
        _one_row_each(store, model)


def test_a_crashed_worker_then_resume(tmp_path: Path) -> None:
    folder = tmp_path / "tiles"
    folder.mkdir()
    for name in ("a", "b", "exit-now", "c"):
        tile = make_tile(Recipe(requests=40, layers=4, seed=len(name)), name=name)
        write_capture(tile, folder / f"{name}.json")
    sources = expand([str(folder)])
    with Store.open(tmp_path / "r.sqlite") as store:
        run_batch(sources, store, SETTINGS, LocalRunner(2, misbehaving_work))
        rows = {r.name: r for r in _one_row_each(store, sources)}
        assert rows["exit-now"].error == "worker stopped (exit code 3) on this capture"
        assert all(rows[n].verdict == "fits" for n in "abc")
        prepare(store, SETTINGS, resume=True, overwrite=False)
        counts = run_batch(sources, store, SETTINGS, LocalRunner(2, misbehaving_work))
        assert (counts.skipped, counts.recorded) == (4, 0)
        _one_row_each(store, sources)


def test_resume_refuses_other_settings_and_overwrite_starts_again(
    tmp_path: Path, model: list[Source]
) -> None:
    with Store.open(tmp_path / "r.sqlite") as store:
        prepare(store, SETTINGS, resume=False, overwrite=False)
        run_batch(model[:2], store, SETTINGS, inline)
        with pytest.raises(InputError, match="recorded with --mode diagnose --no-search"):
            prepare(store, Settings(mode="replay"), resume=True, overwrite=False)
        prepare(store, Settings(mode="replay"), resume=False, overwrite=True)
        assert store.count() == 0
        run_batch(model[:2], store, Settings(mode="replay"), inline)
        assert {r.mode for r in store.rows()} == {"replay"}


def test_another_tool_s_json_is_skipped_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    write_capture(make_tile(Recipe(requests=20, layers=2), name="t"), folder / "t.json")
    (folder / "net.layer_group_debugger.json").write_text('{"type": 3}')
    db = tmp_path / "r.sqlite"
    assert main(["batch", str(folder), "--db", str(db), "--jobs", "1", "--no-search"]) == 0
    err = capsys.readouterr().err
    assert "skipped 1 .json file found in the folders" in err
    with Store.open(db, create=False) as store:
        assert store.count() == 1 and store.error_count() == 0  # no row for it
