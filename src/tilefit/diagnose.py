"""Diagnose: fits, fragmentation or a capacity deficit, with the evidence.

The order of questions follows the seed investigation: replay production
exactly; if it fails, ask the cheap bounds whether any placement can exist;
if they cannot rule it out, try the other strategies, then the exact search.
"""

from __future__ import annotations

from dataclasses import dataclass

from tilefit.placement import Placement

VERDICTS = ("fits", "fragmentation", "capacity", "infeasible", "undetermined")


@dataclass(frozen=True, slots=True)
class Contributor:
    """A request live at the peak step."""

    id: str
    size: int
    cls: str
    alignment: int
    label: str | None


@dataclass(frozen=True, slots=True)
class Diagnosis:
    capture: str
    tile: int | None
    verdict: str  # one of VERDICTS
    strategy: str | None  # what fits: a strategy name, "exact-search", or None
    lower_bound: int
    available: int
    peak_step: int
    deficit: int  # plain: lower_bound - available, 0 when none
    support_deficit: int
    must_leave: int  # bytes that must leave the peak before any placement can exist
    contributors: tuple[Contributor, ...]  # live at the peak, largest first
    production_failed_id: str | None  # the unit named by the last production attempt
    production_failed_at_peak: bool  # is that unit among the peak contributors?
    reproduced: bool | None  # against capture.observed_failed
    placement: Placement | None  # checked valid by the referee, when one was found
    irreducible_subset: tuple[str, ...] | None  # for "infeasible"
    seconds: float


# The function, landing next:
#   diagnose(capture, *, time_limit: float = 10.0, search: bool = True) -> Diagnosis
#   diagnosis_json(diagnosis) -> dict  (the spec's --json keys first)
