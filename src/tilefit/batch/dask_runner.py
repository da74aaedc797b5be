"""Run the batch on an existing Dask distributed cluster (``--scheduler tcp://HOST:PORT``).

The same per-capture work as the local runner, submitted through a
``distributed.Client``; no networking of our own. A job's text travels with
it, so workers need tilefit installed but not the input files. At most a
small multiple of the cluster's threads is in flight at once, so memory stays
flat however many captures there are.

A worker that dies on a capture is restarted by its nanny and the scheduler
retries the capture elsewhere; after the scheduler's allowed failures it
gives up (``KilledWorker``), and the capture gets an error row. The engine
keeps to ``--time-limit`` itself; unlike local workers, a capture that runs
past it cannot be stopped from here.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

from tilefit.batch.inputs import Job
from tilefit.batch.row import error_row
from tilefit.batch.run import Record
from tilefit.batch.work import Settings, WorkFunction, work
from tilefit.errors import InputError

CONNECT_SECONDS = 15
IN_FLIGHT_PER_THREAD = 4


class DaskRunner:
    def __init__(self, scheduler: str, work: WorkFunction = work) -> None:
        self.scheduler = scheduler
        self.work = work

    def __call__(self, jobs: Iterable[Job], settings: Settings, record: Record) -> None:
        # distributed's functions are not all typed: use it as Any.
        distributed: Any = importlib.import_module("distributed")
        try:
            client = distributed.Client(
                self.scheduler, timeout=CONNECT_SECONDS, set_as_default=False
            )
        except (OSError, TimeoutError, ValueError) as error:
            raise InputError("--scheduler", f"cannot reach {self.scheduler}: {error}") from None
        with client:
            window = max(2, IN_FLIGHT_PER_THREAD * sum(client.nthreads().values()))
            waiting = iter(jobs)
            in_flight: dict[Any, Job] = {}
            done = distributed.as_completed(loop=client.loop)

            def submit() -> None:
                job = next(waiting, None)
                if job is not None:
                    future = client.submit(self.work, job, settings, pure=False)
                    in_flight[future] = job
                    done.add(future)

            try:
                for _ in range(window):
                    submit()
                for future in done:
                    job = in_flight.pop(future)
                    try:
                        row = future.result()
                    except Exception as error:  # KilledWorker, a lost connection, ...
                        reason = f"dask: {type(error).__name__}: {error}"
                        row = error_row(job.source, job.name, settings.mode, reason)
                    record(row)
                    submit()
            finally:
                if in_flight:
                    client.cancel(list(in_flight))
