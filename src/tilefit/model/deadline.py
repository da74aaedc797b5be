"""One deadline for a whole command: when it started, its limit, and what is given back.

A command's ``--time-limit`` bounds it from start to exit, except the one-time
compilation of the search kernels (``tilefit.search.compiling``), which is given
back. Every stage reads the same ``Deadline``: what is left, and the moment it
must end by (keeping a reserve for the stages after it); a stage given a share of it
(``share``) gets a sooner one, from the same start. Immutable: giving time back makes a
new one. The search takes it down to its kernels, which read ``at``.

A stage that must still run after a cut (the stacking, the exit's referee) keeps a
reserve of its own cost, measured on a free core and stretched by how busy the machine
is now (``stretch``): on a loaded machine the same work takes several times as long.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class Deadline:
    """When a command's time runs out: a start, a limit, and the seconds not counted."""

    started: float  # on the monotonic clock
    limit: float  # seconds
    given_back: float = 0.0  # seconds not counted (a one-time compilation)
    cpu_started: float = 0.0  # this process's CPU seconds at ``started``

    def __post_init__(self) -> None:
        if self.limit < 0 or self.given_back < 0:
            raise ValueError(f"a deadline of {self.limit} s, {self.given_back} s given back")

    @classmethod
    def start(cls, limit: float, started: float | None = None) -> Deadline:
        """A deadline ``limit`` seconds after ``started`` (default: now)."""
        moment = time.monotonic() if started is None else started
        return cls(moment, max(0.0, limit), cpu_started=time.process_time())

    @property
    def at(self) -> float:
        """The moment it ends, on the monotonic clock."""
        return self.started + self.given_back + self.limit

    def left(self, reserve: float = 0.0) -> float:
        """Seconds left, less ``reserve`` kept for later stages (never below 0)."""
        return max(0.0, self.at - reserve - time.monotonic())

    def spent(self) -> float:
        """Seconds counted against the limit so far."""
        return time.monotonic() - self.started - self.given_back

    def passed(self) -> bool:
        return time.monotonic() >= self.at

    def sooner(self, seconds: float) -> Deadline:
        """The same start, ``seconds`` sooner (kept for what must follow it)."""
        return replace(self, limit=max(0.0, self.limit - max(0.0, seconds)))

    def share(self, fraction: float) -> Deadline:
        """``fraction`` of the limit from now, this deadline at the latest (a stage run after
        others gets what is left of its share): the same start, so that ``spent`` still
        counts from it."""
        end = min(self.at, time.monotonic() + fraction * self.limit)
        return replace(self, limit=max(0.0, end - self.started - self.given_back))

    def until(self, moment: float) -> Deadline:
        """The same start, ending at ``moment`` on the monotonic clock, or sooner: at this
        deadline."""
        end = min(self.at, moment)
        return replace(self, limit=max(0.0, end - self.started - self.given_back))

    def stretch(self) -> float:
        """Wall seconds per CPU second of this process since the deadline started: about 1
        with a core to itself, about N where N processes share one. A reserve measured on
        a free core is multiplied by it. 1 until ``STRETCH_AFTER`` seconds have passed (too
        little to tell), at most ``STRETCH_MOST``."""
        return stretch_of(time.monotonic() - self.started, time.process_time() - self.cpu_started)

    def give_back(self, seconds: float) -> Deadline:
        """The same deadline, ``seconds`` later (time that is not the limit's)."""
        return replace(self, given_back=self.given_back + max(0.0, seconds))


STRETCH_AFTER = 0.05
"""Seconds of wall time before ``Deadline.stretch`` reads the clocks: below it the two differ
by their resolution more than by the load."""
STRETCH_MOST = 8.0
"""The largest stretch: a process waiting on a disk or a child is not that slow."""


def stretch_of(wall: float, cpu: float) -> float:
    """``wall`` seconds over ``cpu`` seconds of this process, between 1 and ``STRETCH_MOST``;
    1 before ``STRETCH_AFTER``, and where the CPU clock went back (a deadline started in the
    process this one was forked from: a child's CPU clock starts at 0)."""
    if wall < STRETCH_AFTER or cpu < 0:
        return 1.0
    return min(STRETCH_MOST, max(1.0, wall / max(cpu, wall / STRETCH_MOST)))
