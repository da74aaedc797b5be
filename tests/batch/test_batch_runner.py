"""Local worker processes: a crash, a kill or a hang costs one capture, never the run."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from batch_helpers import PIDFILE, Unloadable, misbehaving_work

from tilefit.batch.bundle import bundle_line
from tilefit.batch.inputs import Job
from tilefit.batch.row import Row
from tilefit.batch.runner import LocalRunner, WorkerError, hard_limit
from tilefit.batch.work import Settings
from tilefit.generate.synth import Recipe, make_tile

TEXT = bundle_line(make_tile(Recipe(requests=40, layers=4, seed=3), name="ok"))


def _jobs(*names: str) -> list[Job]:
    return [Job(f"bundle:{k}", name, "bundle.jsonl", TEXT) for k, name in enumerate(names)]


def _run(jobs: list[Job], workers: int = 2, time_limit: float = 10.0) -> dict[str, Row]:
    rows: list[Row] = []
    LocalRunner(workers, misbehaving_work)(jobs, Settings(time_limit=time_limit), rows.append)
    by_source = {r.source: r for r in rows}
    assert len(by_source) == len(rows) == len(jobs)  # one row each, none doubled
    return {job.name: by_source[job.source] for job in jobs}


def test_every_capture_gets_a_row() -> None:
    rows = _run(_jobs(*(f"t{k}" for k in range(5))))
    assert all(r.error is None and r.verdict == "fits" and r.name == "ok" for r in rows.values())


def test_a_dying_worker_costs_only_its_capture() -> None:
    rows = _run(_jobs("t0", "exit", "t1", "segfault", "t2", "raise", "t3"))
    assert rows["exit"].error == "worker stopped (exit code 3) on this capture"
    assert rows["segfault"].error == "worker stopped (killed by signal 11) on this capture"
    assert rows["raise"].error == "ValueError: bad luck"
    for name in ("t0", "t1", "t2", "t3"):
        assert rows[name].error is None and rows[name].verdict == "fits"


def test_a_worker_killed_from_outside_mid_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pidfile = tmp_path / "pid"
    monkeypatch.setenv(PIDFILE, str(pidfile))

    def killer() -> None:
        deadline = time.monotonic() + 30
        while not pidfile.exists() or not pidfile.read_text():
            if time.monotonic() > deadline:
                return
            time.sleep(0.02)
        os.kill(int(pidfile.read_text()), signal.SIGKILL)

    thread = threading.Thread(target=killer)
    thread.start()
    rows = _run(_jobs("t0", "victim", "t1", "t2"))
    thread.join()
    assert rows["victim"].error == "worker stopped (killed by signal 9) on this capture"
    assert all(rows[n].verdict == "fits" for n in ("t0", "t1", "t2"))


def test_a_capture_past_the_time_limit_is_stopped() -> None:
    """The hanging capture is stopped at its hard limit; the others, each given a limit
    that a loaded machine keeps too (a 40-request tile decided by its replay), fit."""
    assert hard_limit(0.3) == pytest.approx(1.3)
    assert hard_limit(4.0) == pytest.approx(8.0)
    rows = _run(_jobs("t0", "hang", "t1", "t2"), workers=1, time_limit=4.0)
    assert rows["hang"].error == "time limit: stopped after 8 s"
    assert all(rows[n].verdict == "fits" for n in ("t0", "t1", "t2"))


def test_no_jobs_no_workers() -> None:
    rows: list[Row] = []
    LocalRunner(4)([], Settings(), rows.append)
    assert rows == []


def test_workers_that_cannot_start_stop_the_run() -> None:
    rows: list[Row] = []
    with pytest.raises(WorkerError, match="batch workers cannot start"):
        LocalRunner(1, Unloadable())(_jobs("t0", "t1"), Settings(), rows.append)
    assert rows == []  # no capture is blamed: none was handed to a worker that never started
