"""Run the batch on an existing Dask distributed cluster (``--scheduler tcp://HOST:PORT``).

The same per-capture work as the local runner, submitted through a
``distributed.Client``; no networking of our own. A job's text travels with
it, so workers need tilefit installed but not the input files.

A task works out a chunk of several captures: at ~10 ms a capture, one task
each would spend as much on the scheduler, the client and the worker's own
bookkeeping as on the captures. A chunk holds about ``CHUNK_SECONDS`` of work
(judged from the rows so far; the first tasks hold one capture), no more
than a ``1 / GUIDED`` share of what is left per thread (so the threads
finish together), and at most ``MAX_CHUNK`` captures and about
``CHUNK_BYTES`` of text. At most ``IN_FLIGHT_PER_THREAD`` chunks per thread
are in flight, so memory stays flat however many captures there are. Rows
are recorded as each chunk finishes.

A worker that dies on a capture is restarted by its nanny and the scheduler
retries the task elsewhere; after the scheduler's allowed failures it gives
up (``KilledWorker``). The captures of a task that fails, for that or any
other reason, are suspects: each runs again alone, one suspect at a time,
so the failure is pinned on the capture that causes it, which gets an error
row, while the others get their rows. Each worker compiles the search kernels
(or loads them from its cache) before its first capture, as the local runner
does before its workers start. The engine keeps to ``--time-limit``
itself; unlike local workers, a capture that runs past it cannot be stopped
from here.
"""

from __future__ import annotations

import importlib
from collections import deque
from collections.abc import Iterable, Iterator, Sized
from math import ceil
from typing import Any

from tilefit.batch.inputs import Job
from tilefit.batch.row import Row, error_row
from tilefit.batch.run import Record
from tilefit.batch.work import Settings, WorkFunction, warm_up, work
from tilefit.model.errors import InputError

CONNECT_SECONDS = 15
IN_FLIGHT_PER_THREAD = 2  # chunks: one running, one waiting to start
CHUNK_SECONDS = 0.25  # of work per task: the overhead of a task is a few ms
GUIDED = 4  # a chunk is at most 1/GUIDED of the jobs left per thread
MAX_CHUNK = 32
CHUNK_BYTES = 4_000_000  # of capture text per task, well under Dask's large-graph warning


def work_chunk(function: WorkFunction, jobs: list[Job], settings: Settings) -> list[Row]:
    """One task: the rows of its jobs, in order. The worker first compiles (or loads) the
    search kernels if the mode searches, once per process, outside any capture's limit."""
    warm_up(settings)
    return [function(job, settings) for job in jobs]


def chunk_size(threads: int, remaining: int | None, seconds_per_job: float | None) -> int:
    """Jobs in the next task, from the cluster's threads, the jobs left and their pace.

    ``remaining`` is None when the number of jobs is not known;
    ``seconds_per_job`` is None until some rows have come back.
    """
    if seconds_per_job is None:
        return 1
    size = MAX_CHUNK if seconds_per_job <= 0 else int(CHUNK_SECONDS / seconds_per_job)
    if remaining is not None:
        size = min(size, ceil(remaining / (GUIDED * max(1, threads))))
    return max(1, min(size, MAX_CHUNK))


class DaskRunner:
    """Runs jobs on the cluster at ``scheduler``; ``chunk`` fixes the jobs per task."""

    def __init__(self, scheduler: str, work: WorkFunction = work, chunk: int | None = None) -> None:
        self.scheduler = scheduler
        self.work = work
        self.chunk = chunk

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
            done = distributed.as_completed(loop=client.loop)
            _Stream(client, done, self.work, settings, record, jobs, self.chunk).run()


class _Stream:
    """The jobs of one run on their way through the cluster."""

    def __init__(
        self,
        client: Any,
        done: Any,
        function: WorkFunction,
        settings: Settings,
        record: Record,
        jobs: Iterable[Job],
        chunk: int | None,
    ) -> None:
        self.client = client
        self.done = done  # as_completed: the futures in flight, as they finish
        self.function = function
        self.settings = settings
        self.record = record
        self.waiting: Iterator[Job] | None = iter(jobs)
        self.remaining = len(jobs) if isinstance(jobs, Sized) else None  # not yet taken
        self.chunk = chunk
        self.threads = max(1, sum(client.nthreads().values()))
        self.window = max(2, IN_FLIGHT_PER_THREAD * self.threads)
        self.in_flight: dict[Any, list[Job]] = {}
        self.suspects: deque[Job] = deque()
        self.suspect: Any = None  # the future of the suspect in flight
        self.seconds = 0.0  # of the rows so far
        self.rows = 0

    def run(self) -> None:
        try:
            self._fill()
            for future in self.done:
                self._finish(future)
                self._fill()
        finally:
            if self.in_flight:
                self.client.cancel(list(self.in_flight))

    def _finish(self, future: Any) -> None:
        jobs = self.in_flight.pop(future)
        suspect = future is self.suspect
        if suspect:
            self.suspect = None
        try:
            rows: list[Row] = future.result()
        except Exception as error:  # KilledWorker, a lost connection, ...
            if not suspect:
                self.suspects.extend(jobs)
                return
            (job,) = jobs
            reason = f"dask: {type(error).__name__}: {error}"
            rows = [error_row(job.source, job.name, self.settings.mode, reason)]
        for row in rows:
            self.seconds += row.seconds
            self.rows += 1
            self.record(row)

    def _fill(self) -> None:
        while len(self.in_flight) < self.window:
            if self.suspects and self.suspect is None:
                self.suspect = self._submit([self.suspects.popleft()])
            elif len(self.suspects) < self.window * MAX_CHUNK and (jobs := self._take()):
                self._submit(jobs)
            else:
                return

    def _take(self) -> list[Job]:
        """The next chunk of the input, empty at its end."""
        if self.waiting is None:
            return []
        pace = self.seconds / self.rows if self.rows else None
        size = self.chunk or chunk_size(self.threads, self.remaining, pace)
        jobs: list[Job] = []
        text = 0
        while len(jobs) < size and text < CHUNK_BYTES:
            job = next(self.waiting, None)
            if job is None:
                self.waiting = None
                break
            jobs.append(job)
            text += len(job.text)
        if self.remaining is not None:
            self.remaining -= len(jobs)
        return jobs

    def _submit(self, jobs: list[Job]) -> Any:
        future = self.client.submit(work_chunk, self.function, jobs, self.settings, pure=False)
        self.in_flight[future] = jobs
        self.done.add(future)
        return future
