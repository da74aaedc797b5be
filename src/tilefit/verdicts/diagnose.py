"""Diagnose: fits, fragmentation or a capacity deficit, with the evidence.

The order of questions follows the seed investigation: replay production
exactly; if it fails, ask the cheap bounds whether any placement can exist;
if they cannot rule it out, try the other strategies, then the search
portfolio (``tilefit.search.portfolio``: fast placements and proofs racing on
the machine's cores). When nothing decides, the closest placement found
(``tilefit.search.closest``) says how many bytes short the tile is, and the
least memory top is bracketed between a lower bound and its top
(``tilefit.search.bracket``). Those are the rungs of the decision ladder
(``tilefit.verdicts.ladder``), which ``solve`` climbs too; every placement
reported has passed the independent referee at its one exit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

from tilefit.bounds.deficit import BoundReport
from tilefit.bounds.pieces import PiecesShort
from tilefit.engine.attempt import Attempt
from tilefit.engine.strategy import Strategy
from tilefit.model.capture import Capture
from tilefit.model.deadline import Deadline
from tilefit.model.placement import Placement
from tilefit.search.params import DEFAULT, SearchParams
from tilefit.search.problem import Problem
from tilefit.search.routes import PIECES
from tilefit.verdicts.answer import Answer
from tilefit.verdicts.climb import Climb, Entry
from tilefit.verdicts.ladder import climb_ladder, engine_ready
from tilefit.verdicts.lower import look_lower
from tilefit.verdicts.replay import replay
from tilefit.verdicts.retry import DEFAULT_FALLBACKS
from tilefit.verdicts.verdict import Verdict
from tilefit.verdicts.watch import QUIET, Watch

VERDICTS = tuple(Verdict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Diagnosis(Answer):
    """The ladder's answer for one capture (every field of ``Answer``: the verdict, the
    placement, what proved it), with diagnose's own evidence: the bounds and the
    production replay."""

    capture: str
    tile: int | None
    bound: BoundReport
    production: tuple[Attempt, ...]  # the production attempts, in order
    reproduced: bool | None  # against capture.observed_failed; None when not observed
    lower: Answer | None = None  # an import: the least below its toolchain's plan (lower.py)
    # the requests the compiler placed before its failure (observed.offsets), whose
    # addresses ``reproduced`` compared too; None where the capture does not give them
    observed_placed: int | None = None

    @classmethod
    def of(
        cls,
        answer: Answer,
        capture: Capture,
        bound: BoundReport,
        production: tuple[Attempt, ...],
        reproduced: bool | None,
        lower: Answer | None = None,
    ) -> Diagnosis:
        """``answer`` with the evidence diagnose gathered on ``capture``. On an import, the
        heap's standing is the one beside the least searched for below the toolchain's plan
        where that search found a plan (``lower``), else the one beside the verdict's."""
        given = {f.name: getattr(answer, f.name) for f in fields(Answer)}
        if lower is not None and lower.placement is not None:
            given["heap"] = lower.heap
        return cls(
            **given,
            capture=capture.name,
            tile=capture.tile,
            bound=bound,
            production=production,
            reproduced=reproduced,
            lower=lower,
            observed_placed=None
            if capture.observed_offsets is None
            else len(capture.observed_offsets),
        )

    @property
    def offered(self) -> Placement | None:
        """The placement to hand the user: the least found on an import where it was
        searched (never above the verdict's), else the verdict's."""
        if self.lower is not None and self.lower.placement is not None:
            return self.lower.placement
        return self.placement

    @property
    def pieces(self) -> PiecesShort | None:
        """For "infeasible" by the pieces bound: where and by how much it is short."""
        return self.bound.pieces if self.route == PIECES else None

    @property
    def production_failed_id(self) -> str | None:
        """The unit named by the last production attempt's failure (the error users see)."""
        last = self.production[-1] if self.production else None
        return last.failure.unit.id if last is not None and last.failure else None

    @property
    def production_failed_members(self) -> tuple[str, ...]:
        last = self.production[-1] if self.production else None
        if last is None or last.failure is None:
            return ()
        return tuple(m.id for m in last.failure.unit.members)

    @property
    def production_failed_at_peak(self) -> bool:
        """Is the request named in the production error among those live at the peak?"""
        at_peak = {c.id for c in self.bound.contributors}
        return any(m in at_peak for m in self.production_failed_members)


def diagnose(
    capture: Capture | Problem,
    *,
    time_limit: float = 10.0,
    search: bool = True,
    fallbacks: Sequence[Strategy | str] = DEFAULT_FALLBACKS,
    workers: int | None = None,
    params: SearchParams = DEFAULT,
    watch: Watch = QUIET,
    lower: bool = False,
) -> Diagnosis:
    """One verdict for a capture, with its evidence: the whole ladder
    (``tilefit.verdicts.ladder``), from the production replay up.

    ``time_limit`` bounds the whole (the bounds and the strategies are cheap; the search
    leaves time for the closest placement when it ends undecided), except the one-time
    compilation of the search kernels when no cache holds them (``tilefit.search.compiling``:
    it happens before the search starts, with a line on stderr);
    ``search=False`` stops after the strategies (verdict ``undetermined`` when
    they all fail and no bound proves a deficit). ``fallbacks`` are tried first
    among the strategies, so the retry chain's choice is the one reported.
    ``workers`` caps the processes the search races on (default: up to 2 of
    the machine's cores; 1 runs its members in turn, in this process). ``params``
    switches search routes and prunings off, for an ablation, and tunes the search
    (``tilefit.search.params.SearchParams``).
    ``watch`` hears the search's stages and their deadlines (``tilefit.verdicts.watch``).
    Given a ``Problem``, its prepared units and bounds serve, and whoever gave it reads
    them afterwards instead of building them again.
    ``lower``: on an import whose verdict places it, the least below the toolchain's plan is
    searched in the time left (``Diagnosis.lower``; ``tilefit.verdicts.lower``).
    """
    problem = capture if isinstance(capture, Problem) else Problem(capture)
    capture = problem.capture
    deadline = engine_ready(problem, Deadline.start(time_limit), watch)
    watch.stage("the lower bounds", deadline.at)
    report = problem.bound  # first: cheap, and a deficit they prove needs no more time
    # The production attempts, as production runs them (cut short at the deadline).
    watch.stage("the production replay", deadline.at)
    replayed = replay(problem.prepared, stop=deadline.passed)
    climb = Climb(Entry.REPLAY, search, fallbacks=fallbacks, workers=workers, params=params)
    answer = climb_ladder(problem, deadline, climb, replayed, watch)
    least = None
    if lower and search:
        least = look_lower(problem, answer, deadline, workers=workers, params=params, watch=watch)
    return Diagnosis.of(answer, capture, report, replayed.attempts, replayed.reproduced, least)
