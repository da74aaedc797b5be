"""Shared by the batch tests: sample rows, and a work function that misbehaves on request.

The work function lives in a module of its own so that spawned workers can
import it by name.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import replace
from pathlib import Path

from tilefit.batch.inputs import Job
from tilefit.batch.row import Row, error_row
from tilefit.batch.work import Settings, work

PIDFILE = "TILEFIT_TEST_PIDFILE"


def misbehaving_work(job: Job, settings: Settings) -> Row:
    """The real work, except for captures whose name asks for trouble."""
    if job.name.startswith("exit"):
        os._exit(3)
    if job.name.startswith("segfault"):
        os.kill(os.getpid(), signal.SIGSEGV)
    if job.name.startswith("raise"):
        raise ValueError("bad luck")
    if job.name.startswith("hang"):
        time.sleep(60)
    if job.name.startswith("victim"):
        Path(os.environ[PIDFILE]).write_text(str(os.getpid()))
        time.sleep(60)
    return work(job, settings)


def sample_row(name: str, verdict: str = "fits", **changes: object) -> Row:
    row = Row(
        source=f"/m.jsonl:{name}",
        name=name,
        tile=int(name[1:]) if name[1:].isdigit() else None,
        mode="diagnose",
        verdict=verdict,
        strategy="lifetime/first-fit",
        lower_bound=900,
        available=1000,
        deficit=0,
        support_deficit=0,
        windows=0,
        must_leave=0,
        worst_start=None,
        worst_end=None,
        worst_excess=None,
        failed_id=None,
        seconds=0.5,
    )
    return replace(row, **changes)  # type: ignore[arg-type]


ROWS = [
    sample_row("t3"),
    sample_row("t1", "fragmentation", strategy="long-lived/first-fit", failed_id="w", seconds=2.0),
    sample_row(
        "t2",
        "capacity",
        strategy=None,
        failed_id="w",
        lower_bound=1100,
        deficit=100,
        support_deficit=150,
        windows=2,
        must_leave=160,
        worst_start=5,
        worst_end=7,
        worst_excess=150,
        seconds=0.25,
    ),
    sample_row("t4", "fragmentation", strategy="long-lived/first-fit", failed_id="x"),
    sample_row("t5", "fragmentation", strategy="size/best-fit", failed_id="x"),
    sample_row(
        "t6",
        "capacity",
        strategy=None,
        failed_id="w",
        lower_bound=1050,
        deficit=50,
        support_deficit=50,
        # Less over than t2, but more must leave (alignment padding): ranked first.
        windows=1,
        must_leave=200,
        worst_start=3,
        worst_end=4,
        worst_excess=50,
    ),
    error_row("/m.jsonl:7", "m-line7", "diagnose", "line 1 column 2: malformed JSON"),
]


class Unloadable:
    """A work function that cannot be loaded in a worker: every worker dies starting."""

    def __call__(self, job: Job, settings: Settings) -> Row:
        return work(job, settings)

    def __getstate__(self) -> dict[str, bool]:
        return {"loaded": True}

    def __setstate__(self, state: dict[str, bool]) -> None:
        raise RuntimeError("this work function refuses to load")
