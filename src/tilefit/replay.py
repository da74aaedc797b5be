"""Exact-request replay: the production allocator's attempts on a capture.

The production strategies run in order, each from an empty memory, until one
fits, as the production allocator does. When the capture records the id in
the compiler's final error (``observed``), the replay says whether its own
last failure names the same unit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tilefit.capture import Capture
from tilefit.engine import Attempt, Failure, run_until_fits
from tilefit.placement import Placement
from tilefit.strategy import Strategy


@dataclass(frozen=True)
class ReplayResult:
    capture: str
    attempts: tuple[Attempt, ...]  # in the order run; the last fits, or all failed
    observed: str | None  # the id in the production compiler's final error

    @property
    def fits(self) -> bool:
        return bool(self.attempts) and self.attempts[-1].fits

    @property
    def placement(self) -> Placement | None:
        """The placement of the attempt that fits, if one does."""
        return self.attempts[-1].placement if self.attempts else None

    @property
    def failure(self) -> Failure | None:
        """The final failure: that of the last attempt, when every attempt failed."""
        return self.attempts[-1].failure if self.attempts else None

    @property
    def reproduced(self) -> bool | None:
        """Whether the final failure names the observed id (or a member of it); None
        when nothing was observed."""
        if self.observed is None:
            return None
        failure = self.failure
        if failure is None:
            return False
        unit = failure.unit
        return self.observed == unit.id or any(m.id == self.observed for m in unit.members)


def replay(capture: Capture, strategies: Iterable[Strategy | str] | None = None) -> ReplayResult:
    """The production attempts (or ``strategies`` instead), until one fits.

    >>> result = replay(read_capture("examples/0-0.json"))  # doctest: +SKIP
    >>> result.fits, result.reproduced, result.failure.unit.id  # doctest: +SKIP
    """
    chosen = capture.production if strategies is None else strategies
    return ReplayResult(capture.name, run_until_fits(capture, chosen), capture.observed_failed)


def replay_json(result: ReplayResult) -> dict[str, Any]:
    return {
        "capture": result.capture,
        "attempts": [attempt_json(a) for a in result.attempts],
        "observed": result.observed,
        "reproduced": result.reproduced,
    }


def attempt_json(attempt: Attempt) -> dict[str, Any]:
    failure = attempt.failure
    return {
        "strategy": attempt.strategy.name,
        "status": "fits" if failure is None else "failed",
        "failed": None if failure is None else failure_json(failure),
        "holes": [] if failure is None else [{"start": s, "end": e} for s, e in failure.holes],
        "peak_address": attempt.peak_address,
    }


def failure_json(failure: Failure) -> dict[str, Any]:
    unit = failure.unit
    return {
        "id": unit.id,
        "size": unit.size,
        "alignment": unit.alignment,
        "class": unit.cls,
        "start": unit.start,
        "end": unit.end,
        "placed_before": failure.placed_before,
        "members": [m.id for m in unit.members] if unit.is_sequence else None,
    }
