"""What the decision ladder keeps of its deadline for the stages after a cut.

Each reserve is a stage's cost with a core to itself, measured on the 2-core development
machine with room, times how busy the machine is now (``Deadline.stretch``): the exit's
referee, loading the search with its model, and the closest placement's share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tilefit.model.deadline import Deadline
    from tilefit.search.params import ClosestParams
    from tilefit.search.problem import Problem

REFEREE_PER_REQUEST = 5e-6
"""Seconds the exit's referee and the placement's top take per request with a core to
itself, with room: a million requests took 2.5-3.2 s of CPU and 0.8 s on the 2-core
development machine once the referee clears the placement in numpy columns
(``tilefit.verdicts.check``; 5.7-6.2 s with an object per placed request, 19 s before
numpy's quick look); S_1's 28,526 took 0.09-0.14 s. Kept stretched by the machine's load
(``Deadline.stretch``)."""


SEARCH_LOAD = 0.5
"""Seconds that importing the search and loading its cached kernels take with a core to
itself, numba already loaded (0.3-0.5 s on the 2-core development machine)."""


def referee_seconds(problem: Problem, deadline: Deadline) -> float:
    """The exit's referee reads every request: on a million of them, seconds the limit must
    hold, several times as many on a busy machine."""
    return REFEREE_PER_REQUEST * len(problem.capture.requests) * deadline.stretch()


def loads_in_time(problem: Problem, deadline: Deadline) -> bool:
    """Whether the search can be loaded (its modules and cached kernels, ``SEARCH_LOAD``
    stretched by the machine's load) and its model built (``Problem.model_estimate``, per
    request, stretched too) before the deadline."""
    stretch = deadline.stretch()
    return deadline.left() > problem.model_estimate(stretch) + SEARCH_LOAD * stretch


def closest_reserve(remaining: float, passes: float, params: ClosestParams, descent: bool) -> float:
    """Seconds of ``remaining`` kept from the search for the closest placement, should it
    end undecided: with the ``descent``, ``params.share`` of it; without, about twice the
    greedy passes just run (``passes`` seconds: the closest runs 24 of them on a larger
    capture), at most ``params.seconds`` and a fifth of it."""
    if descent:
        return remaining * params.share
    return min(params.seconds, 2 * passes, remaining / 5)
