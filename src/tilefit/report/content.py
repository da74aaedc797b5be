"""What a report shows, computed once: the diagnosis, every strategy, the maps, the profile."""

from __future__ import annotations

from dataclasses import dataclass

from tilefit.engine.attempt import Attempt, run_strategy
from tilefit.engine.strategy import STRATEGIES
from tilefit.model.capture import Capture
from tilefit.model.placement import Placement
from tilefit.model.words import counted, lifetime_text
from tilefit.plot.compare import Comparison, comparison, refereed
from tilefit.plot.layout import MemoryMap, attempt_map, placement_map
from tilefit.plot.series import ProfileSeries, profile_series
from tilefit.search.problem import Problem
from tilefit.verdicts.check import check
from tilefit.verdicts.diagnose import Diagnosis, diagnose


@dataclass(frozen=True)
class MapView:
    """One memory map of the report and what it stands for."""

    key: str  # the map's name in the page: "m0", "m1"
    heading: str
    caption: str
    layout: MemoryMap


@dataclass(frozen=True)
class ReportContent:
    capture: Capture
    diagnosis: Diagnosis
    matrix: tuple[Attempt, ...]  # every strategy of the experiment matrix, in its order
    maps: tuple[MapView, ...]
    series: ProfileSeries
    compare: Comparison | None = None  # a placement given, beside tilefit's least


@dataclass(frozen=True)
class Given:
    """A placement given to the report (``--placement``): it is drawn beside tilefit's
    least, once refereed."""

    placement: Placement
    source: str  # the file, as the user named it (errors name it)
    name: str  # how the page names it


def gather(
    capture: Capture, *, time_limit: float = 10.0, given: Given | None = None
) -> ReportContent:
    """Diagnose, run every strategy and lay out the maps; ``time_limit`` bounds the search
    (and, with a placement ``given``, the search for the least top beside it)."""
    if given is not None:  # refereed first: a placement refused costs no search
        refereed(capture, given.placement, given.source)
    # On an import, diagnose searches the least below the toolchain's plan: the headline,
    # the banner, the download and the comparison's panel all show that one.
    problem = Problem(capture)  # the ladder's units and bounds serve the matrix and the maps
    diagnosis = diagnose(problem, time_limit=time_limit, lower=True)
    compare = None
    if given is not None:
        compare = comparison(
            capture, given.placement, given.source, given.name, time_limit, diagnosis.lower
        )
    done = {a.strategy.name: a for a in diagnosis.production}  # not run twice
    matrix = tuple(done.get(s.name) or run_strategy(problem.prepared, s) for s in STRATEGIES)
    return ReportContent(
        capture=capture,
        diagnosis=diagnosis,
        matrix=matrix,
        maps=_maps(capture, diagnosis, matrix),
        series=profile_series(capture, diagnosis.bound),
        compare=compare,
    )


def _maps(
    capture: Capture, diagnosis: Diagnosis, matrix: tuple[Attempt, ...]
) -> tuple[MapView, ...]:
    last = diagnosis.production[-1]
    # Without an observed failure there is no production error to speak of: only the
    # replay's (a MiniMalloc CSV has no production history at all).
    observed = capture.observed_failed is not None
    first = MapView(
        "m0",
        ("Production placement" if last.fits else "Production failure")
        if observed
        else ("The replay's placement" if last.fits else "The replay's failure"),
        _attempt_caption(last, who="The production replay's" if observed else "The replay's"),
        attempt_map(capture, last, windows=diagnosis.bound.windows),
    )
    second = _best(capture, diagnosis, matrix, last)
    return (first,) if second is None else (first, second)


def _best(
    capture: Capture, diagnosis: Diagnosis, matrix: tuple[Attempt, ...], production: Attempt
) -> MapView | None:
    """The placement the verdict cites, else the fitting strategy with the lowest peak.

    When nothing fits, the attempt that placed the most units, so the reader
    sees how far the best order got.
    """
    windows = diagnosis.bound.windows
    if diagnosis.placement is not None and not production.fits:
        name = diagnosis.strategy or "a placement"
        title = f"{capture.name}: {name}, fits"
        return MapView(
            "m1",
            f"Placement found: {name}",
            "The placement the verdict cites, checked valid by the independent referee.",
            placement_map(capture, diagnosis.placement.offsets, title, windows),
        )
    fitting = [a for a in matrix if a.fits and a.placement and check(capture, a.placement).valid]
    if fitting:
        best = min(fitting, key=lambda a: a.peak_address)
        if production.fits and best.peak_address >= production.peak_address:
            return None
        return MapView(
            "m1",
            f"Lowest placement found: {best.strategy.name}",
            f"Of the strategies that fit, the one reaching the lowest address "
            f"({best.peak_address:,} B); checked valid by the independent referee.",
            attempt_map(capture, best, windows=windows),
        )
    furthest = max(matrix, key=lambda a: (len(a.placed), -matrix.index(a)))
    if furthest.strategy == production.strategy:
        return None
    return MapView(
        "m1",
        f"No placement found; furthest attempt: {furthest.strategy.name}",
        _attempt_caption(furthest, who=None),
        attempt_map(capture, furthest, windows=windows),
    )


def _attempt_caption(attempt: Attempt, *, who: str | None) -> str:
    """What the map shows; ``who`` names the replay whose last attempt it is, if any."""
    who = "This attempt" if who is None else f"{who} last attempt"
    if attempt.failure is None:
        return f"{who}, {attempt.strategy.name}, places every unit."
    f = attempt.failure
    largest = max((e - s for s, e in f.holes), default=0)
    return (
        f"{who}, {attempt.strategy.name}, places {counted(f.placed_before, 'unit')}, "
        f"then finds no room for {f.unit.id} ({f.unit.size:,} B, alignment "
        f"{f.unit.alignment}) over {lifetime_text(f.unit.start, f.unit.end)}: "
        f"its largest hole is {largest:,} B."
    )
