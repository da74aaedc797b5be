"""The problem a command decides, built once and handed down: ``Problem``.

Every stage of the ladder reads the same capture, the engine's prepared units, the
bounds and the search's model; each is built the first time a stage asks for it and
then kept, so that one command builds the search model once (the portfolio's members,
forked or not, share it) and never builds it when no search runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from tilefit.bounds.deficit import BoundReport, bound
from tilefit.engine.attempt import Prepared
from tilefit.model.capture import Capture

if TYPE_CHECKING:
    from tilefit.search.blocks import SearchModel


@dataclass(frozen=True, eq=False)
class Problem:
    capture: Capture

    @cached_property
    def prepared(self) -> Prepared:
        """Units and constraints shared by every strategy (``tilefit.engine``)."""
        return Prepared.of(self.capture)

    @cached_property
    def bound(self) -> BoundReport:
        return bound(self.capture)

    @cached_property
    def model(self) -> SearchModel:
        """The problem as the search sees it (``tilefit.search.blocks``; no numba)."""
        from tilefit.search.blocks import build_model

        return build_model(self.capture)
