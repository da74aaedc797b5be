"""Exact-request replay: the production allocator's attempts on a capture.

The production strategies run in order, each from an empty memory, until one
fits, as the production allocator does. When the capture records the id in
the compiler's final error (``observed``), the replay says whether its own
last failure names the same unit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from tilefit.engine.attempt import Attempt, Failure, Prepared, prepare, run_until_fits
from tilefit.engine.strategy import Placer, Replaying
from tilefit.model.capture import Capture
from tilefit.model.placement import Placement


@dataclass(frozen=True)
class ReplayResult:
    """The production attempts replayed, and whether they reproduce the observed failure."""

    capture: str
    attempts: tuple[Attempt, ...]  # in the order run; the last fits, or all failed
    observed: str | None  # the id in the production compiler's final error
    # where it placed what it placed before that error, where the capture says
    observed_offsets: tuple[tuple[str, int], ...] | None = None

    @property
    def fits(self) -> bool:
        return bool(self.attempts) and self.attempts[-1].fits

    @property
    def cut(self) -> bool:
        """Its deadline stopped the last attempt: the replay says nothing."""
        return bool(self.attempts) and self.attempts[-1].cut

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
        """Whether the final failure names the observed id (or a member of it) and, where
        the capture gives the observed offsets, every request placed before it is placed
        there and no other; None when nothing was observed."""
        if self.observed is None or self.cut:
            return None
        failure = self.failure
        if failure is None:
            return False
        unit = failure.unit
        named = self.observed == unit.id or any(m.id == self.observed for m in unit.members)
        if self.observed_offsets is None:
            return named
        return named and dict(self.observed_offsets) == dict(self.attempts[-1].offsets)


def replay(
    capture: Capture | Prepared,
    strategies: Iterable[Placer | str] | None = None,
    stop: Callable[[], bool] | None = None,
) -> ReplayResult:
    """The production attempts (or ``strategies`` instead), until one fits (or ``stop``
    cuts one short: see ``ReplayResult.cut``).

    >>> result = replay(read_capture("examples/0-0.json"))  # doctest: +SKIP
    >>> result.fits, result.reproduced, result.failure.unit.id  # doctest: +SKIP
    """
    prepared = prepare(capture)
    cap = prepared.capture
    chosen = cap.production if strategies is None else strategies
    attempts = refereed(prepared, run_until_fits(prepared, chosen, stop))
    return ReplayResult(cap.name, attempts, cap.observed_failed, cap.observed_offsets)


def refereed(prepared: Prepared, attempts: tuple[Attempt, ...]) -> tuple[Attempt, ...]:
    """The attempts, a production allocator's replayed whole refereed: strategies keep the
    capture's rules by construction, an allocator follows its own (TPU-MLIR's keeps no
    bank edge and lets an in-place output share its input's last timestep), so a
    placement of it that breaks one is its failure, not a fit (nor tilefit's bug)."""
    last = attempts[-1] if attempts else None
    if last is None or not last.fits or not isinstance(last.strategy, Replaying):
        return attempts
    from tilefit.verdicts.check import check

    assert last.placement is not None
    violations = check(prepared.capture, last.placement).violations
    if not violations:
        return attempts
    first = violations[0]
    unit = next(u for u in prepared.units if any(m.id in first.ids for m in u.members))
    said = f"{first.kind}: {', '.join(first.ids)}"
    failure = Failure(unit, len(last.placed), (), broken=said)
    return (*attempts[:-1], replace(last, failure=failure))
