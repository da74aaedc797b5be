"""`tilefit batch --scheduler`: the same rows from a real Dask cluster on loopback.

The fixture starts ``dask scheduler`` and ``dask worker`` (two worker
processes, one thread each) on 127.0.0.1 with a free port, and stops them
after the module.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tilefit.batch.bundle import write_bundle
from tilefit.batch.store import Store
from tilefit.cli import main
from tilefit.synth import Recipe, synth_model

distributed = pytest.importorskip("distributed")

HOST = "127.0.0.1"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def _dask(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "dask", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    address = f"tcp://{HOST}:{_free_port()}"
    port = address.rsplit(":", 1)[1]
    processes = [_dask("scheduler", "--host", HOST, "--port", port, "--no-dashboard")]
    shut_down = False
    try:
        worker = ["worker", address, "--nworkers", "2", "--nthreads", "1", "--host", HOST]
        processes.append(_dask(*worker, "--no-dashboard", "--death-timeout", "60"))
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
        return [(*r.values()[:11], r.error) for r in store.rows()]  # all but the seconds


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
