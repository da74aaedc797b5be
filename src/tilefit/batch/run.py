"""One batch run: skip what is recorded, feed the rest to a runner, record each row.

A runner is any callable ``runner(jobs, settings, record)`` that works every
job out somewhere and calls ``record`` with each row in the calling thread
(``LocalRunner``, ``DaskRunner``); the run does not care where the work happens.
The jobs it is given are ``Sized`` (at most that many come), so a runner may
size its work by them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from tilefit.batch.inputs import Job, Source, load
from tilefit.batch.progress import Progress
from tilefit.batch.row import Row, error_row
from tilefit.batch.store import Store
from tilefit.batch.work import Settings
from tilefit.model.errors import InputError
from tilefit.model.words import counted, plural

Record = Callable[[Row], None]
Runner = Callable[[Iterable[Job], Settings, Record], None]


@dataclass(frozen=True, slots=True)
class RunCounts:
    sources: int  # named by the inputs
    skipped: int  # already recorded (--resume)
    recorded: int  # rows written by this run
    errors: int  # of them, error rows
    empty: int = 0  # toolchain files with nothing to plan (no row: not an error)
    foreign: int = 0  # .json files found in folders that are not captures (no row)


def prepare(store: Store, settings: Settings, *, resume: bool, overwrite: bool) -> None:
    """Make the database ready for a run, or refuse (InputError) rather than mix results."""
    rows = store.count()
    if overwrite:
        store.clear()
    elif rows and not resume:
        raise InputError(
            "--db",
            f"already holds {counted(rows, 'row')}: add --resume to skip "
            f"{plural(rows, 'it', 'them')}, or --overwrite to start again",
            str(store.path),
        )
    elif resume:
        before = store.settings()
        if before is not None and (before.mode, before.search) != (settings.mode, settings.search):
            was = f"--mode {before.mode}" + ("" if before.search else " --no-search")
            raise InputError(
                "--resume",
                f"the rows were recorded with {was}; resume with the same, or --overwrite",
                str(store.path),
            )
    store.begin_run(settings)


def run_batch(
    sources: Sequence[Source],
    store: Store,
    settings: Settings,
    runner: Runner,
    progress: Progress | None = None,
    prepare: Callable[[], None] | None = None,
) -> RunCounts:
    """Work out every source without a row and record each row as it arrives. ``prepare``
    runs first when there is work, before the progress line is drawn (the one-time
    compilation of the search kernels says so on lines of its own)."""
    recorded = store.recorded()
    pending = [s for s in sources if s.key not in recorded]
    written = errors = empty = others = 0
    if pending and prepare is not None:
        prepare()
    if progress is not None:
        progress.start(len(pending))

    def record(row: Row) -> None:
        nonlocal written, errors
        store.record(row)
        written += 1
        errors += row.error is not None
        if progress is not None:
            progress.advance(row)

    def jobs() -> Iterator[Job]:
        nonlocal empty, others
        for source in pending:
            try:
                loaded = load(source)
            except InputError as error:
                record(error_row(source.key, source.default_name, settings.mode, error.message))
                continue
            if not loaded and source.toolchain is None:
                others += 1  # another tool's .json, found in a folder
            else:
                empty += not loaded
            yield from (job for job in loaded if job.source not in recorded)

    try:
        runner(_Counted(jobs, len(pending)), settings, record)
    finally:
        if progress is not None:
            progress.finish()
    return RunCounts(len(sources), len(sources) - len(pending), written, errors, empty, others)


@dataclass(frozen=True, slots=True)
class _Counted:
    """Jobs read one at a time, that say how many at most will come."""

    jobs: Callable[[], Iterator[Job]]
    count: int

    def __iter__(self) -> Iterator[Job]:
        return self.jobs()

    def __len__(self) -> int:
        return self.count
