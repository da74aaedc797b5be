"""On an import, the least plan below the toolchain's own: searched in the time a verdict
leaves, so that every page and command that shows the import gives one answer.

A verdict that places the requests (``fits``, ``fragmentation``) says nothing of how low a
plan can go; on an import the user's question is exactly that (issue 50): the toolchain's
plan is the one to beat. Where the plan stands above the bounds' floor, the least top is
searched (``solve --minimize``'s climb of the ladder) with the deadline's time left.
"""

from __future__ import annotations

from tilefit.model.deadline import Deadline
from tilefit.search.params import DEFAULT, SearchParams
from tilefit.search.problem import Problem
from tilefit.verdicts.answer import Answer
from tilefit.verdicts.climb import Climb, Entry
from tilefit.verdicts.ladder import climb_ladder
from tilefit.verdicts.watch import QUIET, Watch


def worth_looking(answer: Answer) -> bool:
    """An import whose verdict places its requests, and whose toolchain's plan the bounds do
    not already show the least."""
    heap = answer.heap
    return heap is not None and answer.verdict.places and not heap.optimal


def look_lower(
    problem: Problem,
    answer: Answer,
    deadline: Deadline,
    *,
    workers: int | None = None,
    params: SearchParams = DEFAULT,
    watch: Watch = QUIET,
) -> Answer | None:
    """The least top of an import below its toolchain's plan (``Answer.least``, its
    placement refereed and its ``heap`` standing from it) by ``deadline``; None where it is
    not worth looking (``worth_looking``) or no time is left to look."""
    if not worth_looking(answer) or deadline.passed():
        return None
    assert answer.heap is not None
    watch.stage(f"the least below {answer.heap.tool}'s {answer.heap.plan}", deadline.at)
    climb = Climb(Entry.STRATEGIES, True, True, None, (), workers=workers, params=params)
    return climb_ladder(problem, deadline, climb, None, watch)
