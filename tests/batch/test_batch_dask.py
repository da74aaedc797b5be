"""`tilefit batch --scheduler`: the same rows from a real Dask cluster on loopback.

The fixture starts ``dask scheduler`` and ``dask worker`` (two worker
processes, one thread each) on 127.0.0.1 with a free port, and stops them
after the module. The scheduler gives up on a task the first time a worker
dies running it (allowed failures 0, against 3 by default), so a crash costs
one worker restart, not four; the workers can import ``batch_helpers``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from batch_helpers import misbehaving_work
from checkout import TESTS

from tilefit.batch.bundle import write_bundle
from tilefit.batch.dask_runner import (
    GUIDED,
    IN_FLIGHT_PER_THREAD,
    MAX_CHUNK,
    DaskRunner,
    chunk_size,
    work_chunk,
)
from tilefit.batch.inputs import Job, expand, load
from tilefit.batch.row import Row
from tilefit.batch.store import Store
from tilefit.batch.work import Settings, work
from tilefit.cli import main
from tilefit.formats.save import write_capture
from tilefit.generate.synth import Recipe, make_tile, synth_model

distributed = pytest.importorskip("distributed")

HOST = "127.0.0.1"
SETTINGS = Settings(search=False)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def _dask(*args: str, **env: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "dask", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **env},
    )


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    address = f"tcp://{HOST}:{_free_port()}"
    port = address.rsplit(":", 1)[1]
    # The scheduler unpickles the tasks too, so both see batch_helpers.
    tests = str(TESTS)
    env = {
        "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0",
        "PYTHONPATH": os.pathsep.join(p for p in (tests, os.environ.get("PYTHONPATH")) if p),
    }
    processes = [_dask("scheduler", "--host", HOST, "--port", port, "--no-dashboard", **env)]
    shut_down = False
    try:
        worker = ["worker", address, "--nworkers", "2", "--nthreads", "1", "--host", HOST]
        processes.append(_dask(*worker, "--no-dashboard", "--death-timeout", "60", **env))
        client = distributed.Client(address, timeout=60)
        client.wait_for_workers(2, timeout=60)
        yield address
        client.shutdown()  # the scheduler and its workers, quicker than signals
        shut_down = True
    finally:
        for process in reversed(processes):
            if not shut_down:
                process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    path = tmp_path / "m.jsonl"
    write_bundle(synth_model(tiles=12, seed=6, base=Recipe(requests=60, layers=6)), path)
    with path.open("a") as out:
        out.write("{not json\n")
    return path


def _rows(db: Path) -> list[tuple[object, ...]]:
    with Store.open(db, create=False) as store:
        return sorted(_key(r) for r in store.rows())


def _key(row: Row) -> tuple[object, ...]:
    return (*row.values()[:11], row.error)  # all but the seconds


def test_a_chunk_is_about_a_quarter_second_of_work_once_the_pace_is_known() -> None:
    assert chunk_size(threads=2, remaining=10_000, seconds_per_job=None) == 1
    assert chunk_size(threads=2, remaining=10_000, seconds_per_job=0.01) == 25
    assert chunk_size(threads=2, remaining=10_000, seconds_per_job=0.001) == MAX_CHUNK
    assert chunk_size(threads=2, remaining=10_000, seconds_per_job=0.0) == MAX_CHUNK
    assert chunk_size(threads=2, remaining=None, seconds_per_job=0.01) == 25
    assert chunk_size(threads=2, remaining=10_000, seconds_per_job=3.0) == 1


def test_chunks_shrink_as_the_jobs_run_out_so_the_threads_finish_together() -> None:
    assert chunk_size(threads=2, remaining=80, seconds_per_job=0.01) == 80 // (2 * GUIDED)
    assert chunk_size(threads=2, remaining=9, seconds_per_job=0.01) == 2
    assert chunk_size(threads=2, remaining=1, seconds_per_job=0.01) == 1
    assert chunk_size(threads=64, remaining=1000, seconds_per_job=0.01) == 4


def test_a_task_works_its_jobs_in_order(bundle: Path) -> None:
    jobs = [job for s in expand([str(bundle)]) for job in load(s)][-3:]
    rows = work_chunk(work, jobs, SETTINGS)
    assert [_key(r) for r in rows] == [_key(work(j, SETTINGS)) for j in jobs]


def test_a_task_warms_the_search_kernels_before_its_first_capture(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tilefit.batch import dask_runner

    calls: list[str] = []
    monkeypatch.setattr(dask_runner, "warm_up", lambda settings: calls.append(settings.mode))

    def timed(job: Job, settings: Settings) -> Row:
        calls.append(job.name)
        return work(job, settings)

    jobs = [job for s in expand([str(bundle)]) for job in load(s)][-2:]
    work_chunk(timed, jobs, SETTINGS)
    assert calls == [SETTINGS.mode, *(j.name for j in jobs)]


def test_a_dask_run_records_what_a_local_run_records(
    scheduler: str, bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    on_dask, local = tmp_path / "dask.sqlite", tmp_path / "local.sqlite"
    args = ["batch", str(bundle), "--no-search", "--quiet"]
    assert main([*args, "--db", str(on_dask), "--scheduler", scheduler]) == 1  # one error row
    assert main([*args, "--db", str(local), "--jobs", "2"]) == 1
    rows = _rows(on_dask)
    assert rows == _rows(local)
    assert len(rows) == 13
    (error,) = [r for r in rows if r[-1] is not None]
    assert error[1] == "m-line13"


def test_a_dask_run_resumes(
    scheduler: str, bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.sqlite"
    lines = bundle.read_text().splitlines(keepends=True)
    half = tmp_path / "half" / "m.jsonl"
    half.parent.mkdir()
    # The same file, first half only, stands for a run cut short.
    half.write_text("".join(lines[:5]))
    args = ["batch", "--db", str(db), "--scheduler", scheduler, "--no-search", "--quiet"]
    assert main([*args, str(half)]) == 0
    half.write_text("".join(lines))
    assert main([*args, str(half), "--resume"]) == 1
    rows = _rows(db)
    assert len(rows) == len({r[0] for r in rows}) == 13


def _model(tmp_path: Path, names: list[str]) -> list[Job]:
    """A folder of captures, one file each: the work in batch_helpers goes by file names."""
    for k, name in enumerate(names):
        tile = make_tile(Recipe(requests=40, layers=4, seed=k), name=name)
        write_capture(tile, tmp_path / f"{name}.json")
    return [job for s in expand([str(tmp_path)]) for job in load(s)]


def _expected(jobs: list[Job]) -> list[tuple[object, ...]]:
    return sorted(_key(work(job, SETTINGS)) for job in jobs)


def test_chunked_tasks_give_the_same_rows_and_hold_few_jobs_at_a_time(
    scheduler: str, tmp_path: Path
) -> None:
    jobs = _model(tmp_path, [f"t{k}" for k in range(40)])
    taken = 0
    rows: list[Row] = []
    held: list[int] = []  # each time a row comes: jobs taken from the input, not yet recorded

    def take() -> Iterator[Job]:
        nonlocal taken
        for job in jobs:
            taken += 1
            yield job

    def record(row: Row) -> None:
        held.append(taken - len(rows))
        rows.append(row)

    DaskRunner(scheduler, chunk=3)(take(), SETTINGS, record)
    assert sorted(map(_key, rows)) == _expected(jobs)
    assert max(held) <= IN_FLIGHT_PER_THREAD * 2 * 3  # chunks a thread, threads, jobs a chunk


def _one_error(scheduler: str, jobs: list[Job]) -> tuple[object, ...]:
    """The one error row of a run in chunks of 4; every other row as worked out alone."""
    rows: list[Row] = []
    DaskRunner(scheduler, misbehaving_work, chunk=4)(jobs, SETTINGS, rows.append)
    (failed,) = [_key(r) for r in rows if r.error is not None]
    good = [j for j in jobs if j.source != failed[0]]
    assert sorted(_key(r) for r in rows if r.error is None) == _expected(good)
    return failed


def test_a_capture_that_raises_in_a_chunk_costs_only_that_capture(
    scheduler: str, tmp_path: Path
) -> None:
    jobs = _model(tmp_path, [*(f"a{k}" for k in range(9)), "raise-me", "t10", "t11"])
    failed = _one_error(scheduler, jobs)
    assert failed[1] == "raise-me" and failed[-1] == "dask: ValueError: bad luck"


def test_a_worker_that_dies_in_a_chunk_costs_only_its_capture(
    scheduler: str, tmp_path: Path
) -> None:
    jobs = _model(tmp_path, [*(f"a{k}" for k in range(5)), "exit-now", "t6", "t7", "t8"])
    failed = _one_error(scheduler, jobs)
    assert failed[1] == "exit-now" and str(failed[-1]).startswith("dask: KilledWorker")


def test_an_unreachable_scheduler_is_a_usage_error(
    bundle: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("tilefit.batch.dask_runner.CONNECT_SECONDS", 1)
    address = f"tcp://{HOST}:{_free_port()}"
    code = main(["batch", str(bundle), "--db", str(tmp_path / "r.sqlite"), "--scheduler", address])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"tilefit: --scheduler: cannot reach {address}")
