"""The problem a command decides, built once and handed down: ``Problem``.

Every stage of the ladder reads the same capture, the engine's prepared units, the
bounds and the search's model; each is built the first time a stage asks for it and
then kept, so that one command builds the search model once (the portfolio's members,
forked or not, share it) and never builds it when no search runs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from tilefit.bounds.deficit import BoundReport, bound
from tilefit.engine.attempt import UNIFORM_FROM, Prepared
from tilefit.model.capture import Capture

if TYPE_CHECKING:
    from tilefit.search.blocks import SearchModel


MODEL_PER_REQUEST = 30e-6
"""Seconds of building the search model per request with a core to itself, with room (S_1's
28,526 requests: 0.71 s; resnet50's 1,042: 0.015 s, on the 2-core development machine)."""

UNITS_PER_REQUEST = 4e-6
"""The same for the units and their constraints (a million made-up requests: 3.0 s)."""


@dataclass(frozen=True, eq=False)
class Problem:
    """A capture with what the verdicts share of it, each part built once when first asked."""

    capture: Capture
    uniform_from: int = UNIFORM_FROM  # units from which the engine's compiled loop places it
    built: dict[str, float] = field(default_factory=dict, compare=False, repr=False)
    """Seconds each part took to build, by name (``model``: the estimates read it)."""

    @cached_property
    def prepared(self) -> Prepared:
        """Units and constraints shared by every strategy (``tilefit.engine``)."""
        return Prepared.of(self.capture, self.uniform_from)

    @cached_property
    def bound(self) -> BoundReport:
        return bound(self.capture)

    @cached_property
    def model(self) -> SearchModel:
        """The problem as the search sees it (``tilefit.search.blocks``; no numba)."""
        from tilefit.search.blocks import build_model

        began = time.monotonic()
        model = build_model(self.capture)
        self.built["model"] = time.monotonic() - began
        return model

    @cached_property
    def section_members(self) -> int:
        """How many members the exact search's sections would hold (counted over the
        requests' lifetimes, which its blocks follow)."""
        from tilefit.search.kernel.sections import member_count

        return member_count([(r.start, r.end) for r in self.capture.requests])

    def model_estimate(self, stretch: float = 1.0) -> float:
        """About how long building the search model takes (0 once it is built), on a
        machine where a second of CPU takes ``stretch`` seconds (``Deadline.stretch``)."""
        if "model" in self.built:
            return 0.0
        return MODEL_PER_REQUEST * len(self.capture.requests) * stretch

    def rebuild_seconds(self, stretch: float = 1.0) -> float:
        """About what building the units and the model of another capture of this size
        takes (the closest placement builds them for its extended capture): the model's
        own build where it ran here, else its estimate, and the units' estimate."""
        count = len(self.capture.requests)
        model = self.built.get("model", MODEL_PER_REQUEST * count * stretch)
        return model + UNITS_PER_REQUEST * count * stretch
