"""Local worker processes: each capture runs in a worker the runner can replace.

A pool of our own rather than ``concurrent.futures``: a worker that dies
(``os._exit``, a segfault, the out-of-memory killer) or outlives its time
must cost only its own capture, which becomes an error row, while the
others go on. A ``ProcessPoolExecutor`` marks the whole pool broken instead.

Each worker serves one capture at a time over a pipe. A capture still
running ``time_limit + max(time_limit, 1 s)`` after it was handed out is
stopped (the engine itself keeps to ``time_limit``; the margin covers
parsing and bounds) and its worker replaced. Workers ignore Ctrl-C: the
runner stops them, so rows are recorded by one process only.

Workers are spawned (a fresh interpreter each), so a script that runs a
``LocalRunner`` needs the usual ``if __name__ == "__main__":`` guard.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from time import monotonic

from tilefit.batch.inputs import Job
from tilefit.batch.row import Row, error_row
from tilefit.batch.work import Settings, WorkFunction, load, warm_up, work

Record = Callable[[Row], None]
_READY = "ready"
MAX_FAILED_STARTS = 3  # in a row: past this the machine, not a capture, is the problem


class WorkerError(RuntimeError):
    """Local workers cannot start (for instance, the work function cannot be imported)."""


def hard_limit(time_limit: float) -> float:
    """Seconds after which a capture's worker is stopped."""
    return time_limit + max(time_limit, 1.0)


def default_jobs() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _serve(conn: Connection, function: WorkFunction, settings: Settings) -> None:
    """A worker's life: answer one job at a time until told to stop or the runner is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked by _start
    load(settings)  # before the first capture's limit starts
    conn.send(_READY)
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        try:
            row = function(job, settings)
        except Exception as error:  # a work function that raises still yields a row
            row = error_row(job.source, job.name, settings.mode, f"{type(error).__name__}: {error}")
        try:
            conn.send(row)
        except OSError:  # the runner is gone (killed): nobody to answer
            return


@dataclass(slots=True)
class _Worker:
    process: BaseProcess
    conn: Connection
    ready: bool = False
    job: Job | None = None
    deadline: float = 0.0


class LocalRunner:
    """Runs jobs in ``workers`` local processes; ``work`` is the per-capture function."""

    def __init__(self, workers: int | None = None, work: WorkFunction = work) -> None:
        self.workers = workers if workers is not None else default_jobs()
        self.work = work

    def __call__(self, jobs: Iterable[Job], settings: Settings, record: Record) -> None:
        warm_up(settings)
        _Pool(self.workers, self.work, settings, record).run(iter(jobs))


class _Pool:
    def __init__(
        self, size: int, function: WorkFunction, settings: Settings, record: Record
    ) -> None:
        self.size = max(1, size)
        self.function = function
        self.settings = settings
        self.record = record
        self.limit = hard_limit(settings.time_limit)
        # spawn: a fresh interpreter per worker, whatever threads the caller runs.
        self.context = multiprocessing.get_context("spawn")
        self.workers: list[_Worker] = []
        self._failed_starts = 0

    def run(self, jobs: Iterator[Job]) -> None:
        pending = _Peekable(jobs)
        try:
            while pending.more() and len(self.workers) < self.size:
                self.workers.append(self._start())
            while True:
                self._hand_out(pending)
                if not pending.more() and all(w.job is None for w in self.workers):
                    return
                self._collect()
        finally:
            self._stop_all()

    def _start(self) -> _Worker:
        ours, theirs = self.context.Pipe()
        process = self.context.Process(
            target=_serve, args=(theirs, self.function, self.settings), daemon=True
        )
        # A Ctrl-C on the terminal reaches the whole process group: keep it
        # blocked until the worker has started ignoring it.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        theirs.close()
        return _Worker(process, ours)

    def _hand_out(self, pending: _Peekable) -> None:
        for worker in self.workers:
            if worker.ready and worker.job is None and pending.more():
                job = pending.next()
                worker.job = job
                worker.deadline = monotonic() + self.limit
                with suppress(OSError):  # it died between jobs: _collect sees its sentinel
                    worker.conn.send(job)

    def _collect(self) -> None:
        now = monotonic()
        deadlines = [w.deadline for w in self.workers if w.job is not None]
        timeout = max(0.0, min(deadlines) - now) if deadlines else 1.0
        handles: list[Connection | int] = [w.conn for w in self.workers]
        handles += [w.process.sentinel for w in self.workers]
        ready = set(wait(handles, timeout=timeout))
        for worker in list(self.workers):
            alive = self._receive(worker) if worker.conn in ready else True
            if not alive or worker.process.sentinel in ready:
                worker.process.join(timeout=1.0)
                if not worker.ready:
                    self._failed_starts += 1
                    if self._failed_starts > MAX_FAILED_STARTS:
                        raise WorkerError(f"batch workers cannot start ({_exit(worker)})")
                self._replace(worker, f"worker stopped ({_exit(worker)}) on this capture")
            elif worker.job is not None and monotonic() > worker.deadline:
                self._replace(worker, f"time limit: stopped after {self.limit:g} s")

    def _receive(self, worker: _Worker) -> bool:
        """Take what a worker sent; False when its pipe is closed (it died)."""
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):
            return False
        if message == _READY:
            worker.ready = True
            self._failed_starts = 0
        elif isinstance(message, Row) and worker.job is not None:
            worker.job = None
            self.record(message)
        return True

    def _replace(self, worker: _Worker, error: str) -> None:
        job = worker.job
        _kill(worker)
        self.workers.remove(worker)
        if job is not None:
            seconds = self.limit if error.startswith("time limit") else 0.0
            self.record(error_row(job.source, job.name, self.settings.mode, error, seconds))
        self.workers.append(self._start())

    def _stop_all(self) -> None:
        for worker in self.workers:
            with suppress(OSError):
                worker.conn.send(None)
        for worker in self.workers:
            worker.process.join(timeout=0.5 if worker.job is None else 0.0)
            _kill(worker)
        self.workers = []


def _kill(worker: _Worker) -> None:
    if worker.process.is_alive():
        worker.process.kill()
    worker.process.join(timeout=5)
    worker.conn.close()


def _exit(worker: _Worker) -> str:
    code = worker.process.exitcode
    if code is not None and code < 0:
        return f"killed by signal {-code}"
    return f"exit code {code}"


class _Peekable:
    """An iterator that can say whether it has more without losing an item."""

    def __init__(self, items: Iterator[Job]) -> None:
        self._items = items
        self._head: Job | None = None
        self._done = False

    def more(self) -> bool:
        if self._head is None and not self._done:
            self._head = next(self._items, None)
            self._done = self._head is None
        return self._head is not None

    def next(self) -> Job:
        if self._head is None and not self.more():
            raise StopIteration
        job, self._head = self._head, None
        assert job is not None
        return job
