"""One plan of a toolchain replanned: its least found, and the plan kept, never worse.

``tilefit replan`` and ExecuTorch's planner ask the same of every plan: the
toolchain's own placement refereed (``verdicts.imported.review``); unless the
bounds already prove it the least, the least top searched (``solve`` with
``minimize``, the ladder's answer, on the one ``Problem`` whose bounds decided to
search); and tilefit's placement kept only where
it ends lower than the toolchain's own, else the toolchain's own as it was.
What is proven is the ladder's and the bounds' word (``HeapStanding``), never
worked out again here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tilefit.engine.attempt import SEARCHING_FROM
from tilefit.model.capture import Capture
from tilefit.model.placement import Placement, placement_top
from tilefit.search.problem import Problem
from tilefit.verdicts.answer import Answer
from tilefit.verdicts.check import CheckResult
from tilefit.verdicts.heap import HeapStanding, heap_standing
from tilefit.verdicts.imported import referee, review
from tilefit.verdicts.watch import QUIET, Watch


@dataclass(frozen=True)
class Replanned:
    """One plan replanned: the placement kept and where it stands."""

    placement: Placement | None  # the plan kept (None: no plan of its own, and none found)
    top: int | None  # the kept plan's top
    tilefit: bool  # the plan kept is tilefit's, lower than the toolchain's own
    proven: bool  # no plan of these requests ends below the kept one
    lower_bound: int | None  # no plan ends below this (None: the search found no bound)
    standing: HeapStanding  # the toolchain's own heap beside the bounds (and the best found)
    refused: CheckResult | None = None  # the own plan fails the referee: nothing searched
    answer: Answer | None = None  # the ladder's, where the search ran (what it did, what cut it)


def replan(
    capture: Capture,
    own: Placement | None,
    time_limit: float,
    workers: int | None = None,
    watch: Watch = QUIET,
) -> Replanned:
    """``capture``'s least plan within ``time_limit`` seconds, beside the toolchain's own
    placement ``own`` (None: the toolchain gave none); ``capture`` is an import (its
    origin is the toolchain's heap)."""
    # One problem: the bounds that decide whether to search are the ones the ladder reads.
    problem = Problem(capture, SEARCHING_FROM)
    report = problem.bound
    reviewed = None if own is None else review(capture, own, report)
    if reviewed is None:  # no plan of the toolchain's to referee: its heap beside the bounds
        standing = heap_standing(capture, report.lower_bound, None, aligned=report.aligned.top)
    else:
        standing = reviewed.standing
    if standing is None:
        raise ValueError(f"{capture.name} is not an import: no toolchain's heap to replan")
    if reviewed is not None and not reviewed.check.valid:
        return Replanned(own, None, False, False, standing.floor, standing, reviewed.check)
    own_top = None if own is None else placement_top(capture, own.offsets)
    if own is not None and standing.optimal:  # the bounds prove it the least: nothing to search
        return Replanned(own, own_top, False, True, standing.floor, standing)
    from tilefit.verdicts.solving import solve

    watch.stage(f"the least {standing.plan} of {capture.name}: greedy passes")
    answer = solve(problem, time_limit, minimize=True, workers=workers, watch=watch)
    searched = answer.heap if answer.heap is not None else standing
    least = answer.least
    lower = None if least is None else least.lower_bound
    found = None if least is None else least.best_top
    if answer.placement is not None and found is not None and (own_top is None or found < own_top):
        return Replanned(
            answer.placement, found, True, searched.proven, lower, searched, answer=answer
        )
    proven = own is not None and searched.optimal
    return Replanned(own, own_top, False, proven, lower, searched, answer=answer)


def replan_preferring(
    preferred: Capture, capture: Capture, own: Placement, time_limit: float, watch: Watch = QUIET
) -> Replanned:
    """``capture``'s least plan, looked for first among those keeping ``preferred``'s
    extra rules (the pairs the toolchain's own plan keeps in different banks): a plan
    keeping them is taken when it ends below the toolchain's own, else the least of
    ``capture`` found (never worse than ``own``)."""
    keeps = referee(preferred, own).valid  # the own plan is a start only where it keeps them
    kept = replan(preferred, own if keeps else None, time_limit, watch=watch)
    if kept.tilefit and kept.top is not None and kept.top < placement_top(capture, own.offsets):
        # proven the least of those keeping the rules, not of every plan: its bounds are
        # the plain capture's
        from tilefit.bounds.deficit import bound

        return replace(kept, proven=False, lower_bound=bound(capture).lower_bound)
    return replan(capture, own, time_limit, watch=watch)
