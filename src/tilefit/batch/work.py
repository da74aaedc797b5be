"""The work on one capture, as a worker does it: parse, run the mode, make a row.

A mode is a function from a capture to a ``ModeResult``; ``MODES`` maps each
``--mode`` name to one, so a new mode is one function and one entry. A mode
imports the verdict it asks when it runs, so the command line that only
lists the modes loads no engine. ``work``
never raises for a bad capture: a malformed one, or an engine error, becomes
an error row, and the run goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from time import perf_counter
from typing import TYPE_CHECKING

from tilefit.batch.inputs import Job
from tilefit.batch.row import Row, error_row
from tilefit.formats.jsonread import parse_json
from tilefit.formats.load import capture_from_json
from tilefit.formats.minimalloc import capture_from_csv
from tilefit.model.capture import Capture
from tilefit.model.errors import InputError
from tilefit.verdicts.verdict import Verdict

if TYPE_CHECKING:
    from tilefit.bounds.deficit import BoundReport
    from tilefit.search.routes import Status


@dataclass(frozen=True, slots=True)
class Settings:
    """What every capture of one run is asked."""

    mode: str = "diagnose"
    time_limit: float = 10.0  # seconds the engine may spend on one capture
    search: bool = True  # diagnose: run the exact search when strategies cannot decide


@dataclass(frozen=True, slots=True)
class ModeResult:
    """The mode-specific part of a row: one answer, in the field of its meaning (the
    diagnose mode's verdict, the solve mode's search status, or whether the replay or
    place mode's attempts fit), written as one word in the row's ``verdict`` column."""

    verdict: Verdict | None = None  # diagnose
    status: Status | None = None  # solve: the search's status
    fits: bool | None = None  # replay and place: the attempts fit, or all failed
    strategy: str | None = None
    lower_bound: int | None = None
    available: int | None = None
    deficit: int | None = None
    support_deficit: int | None = None
    failed_id: str | None = None
    overload: Overload | None = None  # None for a mode that does not bound the tile

    @property
    def word(self) -> str:
        """The row's ``verdict`` column: the verdict, the status, or the replay's word
        (``fits`` or ``failed``, as ``replay --json`` says an attempt's status)."""
        if self.verdict is not None:
            return self.verdict.value
        if self.status is not None:
            return self.status.value
        if self.fits is None:
            raise ValueError("a mode's result holds no answer")
        return "fits" if self.fits else "failed"


@dataclass(frozen=True, slots=True)
class Overload:
    """How many overloaded windows a tile has, and its worst: the one most must leave."""

    count: int
    must_leave: int  # 0 when there is no window
    worst_start: int | None
    worst_end: int | None
    worst_excess: int | None

    @classmethod
    def of(cls, report: BoundReport) -> Overload:
        if not report.windows:
            return cls(0, 0, None, None, None)
        # The earliest of the windows that need the most to leave.
        worst = max(report.windows, key=lambda w: (w.must_leave, w.excess, -w.start))
        return cls(len(report.windows), worst.must_leave, worst.start, worst.end, worst.excess)


Mode = Callable[[Capture, Settings], ModeResult]
WorkFunction = Callable[[Job, Settings], Row]


def parse(job: Job) -> Capture:
    """The capture in a job's text: JSON, or a minimalloc CSV when the file says so."""
    try:
        if job.filename.lower().endswith(".csv"):
            return capture_from_csv(job.text, job.filename)
        return capture_from_json(parse_json(job.text), default_name=job.name)
    except InputError as error:
        raise error.located(job.source) from None


def work(job: Job, settings: Settings) -> Row:
    """One capture's row; every failure is an error row, never an exception."""
    started = perf_counter()
    name = job.name
    try:
        capture = parse(job)
        name = capture.name
        outcome = MODES[settings.mode](capture, settings)
    except InputError as error:
        return error_row(job.source, name, settings.mode, error.message, perf_counter() - started)
    except Exception as error:  # an engine bug must not end a run over thousands of tiles
        message = f"internal error: {type(error).__name__}: {error}"
        return error_row(job.source, name, settings.mode, message, perf_counter() - started)
    over = outcome.overload
    return Row(
        source=job.source,
        name=capture.name,
        tile=capture.tile,
        mode=settings.mode,
        verdict=outcome.word,
        strategy=outcome.strategy,
        lower_bound=outcome.lower_bound,
        available=outcome.available,
        deficit=outcome.deficit,
        support_deficit=outcome.support_deficit,
        windows=None if over is None else over.count,
        must_leave=None if over is None else over.must_leave,
        worst_start=None if over is None else over.worst_start,
        worst_end=None if over is None else over.worst_end,
        worst_excess=None if over is None else over.worst_excess,
        failed_id=outcome.failed_id,
        seconds=perf_counter() - started,
    )


def _diagnose(capture: Capture, settings: Settings) -> ModeResult:
    from tilefit.verdicts.diagnose import diagnose

    # One process per capture: the batch runs captures side by side already.
    found = diagnose(capture, time_limit=settings.time_limit, search=settings.search, workers=1)
    failed = found.production_failed_id
    return _bounded(found.bound, verdict=found.verdict, strategy=found.strategy, failed=failed)


def _bounded(
    report: BoundReport,
    *,
    verdict: Verdict | None = None,
    status: Status | None = None,
    fits: bool | None = None,
    strategy: str | None = None,
    failed: str | None = None,
) -> ModeResult:
    """The answer with the tile's bounds."""
    return ModeResult(
        verdict=verdict,
        status=status,
        fits=fits,
        strategy=strategy,
        lower_bound=report.lower_bound,
        available=report.available,
        deficit=report.deficit,
        support_deficit=report.support_deficit,
        failed_id=failed,
        overload=Overload.of(report),
    )


def _replay(capture: Capture, settings: Settings) -> ModeResult:
    """The production attempts in order: ``fits`` with the first that fits, else ``failed``
    (no ladder runs: the bounds are built here, once)."""
    from tilefit.bounds.deficit import bound
    from tilefit.verdicts.replay import replay

    result = replay(capture)
    if result.fits:
        return _bounded(bound(capture), fits=True, strategy=result.attempts[-1].strategy.name)
    failed = None if result.failure is None else result.failure.unit.id
    return _bounded(bound(capture), fits=False, failed=failed)


def _place(capture: Capture, settings: Settings) -> ModeResult:
    """The retry chain: production first, the fallbacks only where production fails.

    A tile that fits in production keeps its strategy; ``failed_id`` is set
    when production failed, whatever the fallbacks did.
    """
    from tilefit.bounds.deficit import bound
    from tilefit.verdicts.retry import place

    result = place(capture)
    failure = result.production_failure
    failed = None if failure is None else failure.unit.id
    return _bounded(bound(capture), fits=result.fits, strategy=result.strategy, failed=failed)


def _solve(capture: Capture, settings: Settings) -> ModeResult:
    """The search portfolio, as ``tilefit solve``: ``solved``, ``infeasible`` or ``timeout``
    (the bounds are the ladder's, read from its problem)."""
    from tilefit.search.problem import Problem
    from tilefit.verdicts.solving import solve

    problem = Problem(capture)
    # One process per capture: the batch runs captures side by side already.
    answer = solve(problem, settings.time_limit, workers=1)
    return _bounded(problem.bound, status=answer.status, strategy=answer.strategy)


def warm_up(settings: Settings) -> None:
    """Compile the search kernels here, before any worker starts, when the mode searches:
    the workers then load them from the cache instead of each compiling them in a
    capture's time (``tilefit.search.compiling``)."""
    if settings.mode == "solve" or (settings.mode == "diagnose" and settings.search):
        from tilefit.search.compiling import ensure_compiled

        ensure_compiled()


def load(settings: Settings) -> None:
    """The modules a worker's mode runs, imported before the worker says it is ready: the
    hard limit of a capture (``tilefit.batch.runner.hard_limit``) then counts its work,
    not the worker's first imports, which take a second on a busy machine."""
    from importlib import import_module

    import_module("tilefit.bounds.deficit")
    import_module(_VERDICTS[settings.mode])


_VERDICTS = {
    "diagnose": "tilefit.verdicts.diagnose",
    "replay": "tilefit.verdicts.replay",
    "place": "tilefit.verdicts.retry",
    "solve": "tilefit.verdicts.solving",
}
"""The module each mode's function imports when it runs."""


MODES: dict[str, Mode] = {
    "diagnose": _diagnose,
    "replay": _replay,
    "place": _place,
    "solve": _solve,
}
