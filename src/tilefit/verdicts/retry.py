"""The retry chain for production use: further strategies only where production fails.

A tile that the production strategies already fit keeps exactly the placement
they give; only on a tile where they all fail are the further strategies
tried, in order, each from an empty memory. This is the seed investigation's
first recommendation: try long-lived-first on failing tiles, retaining the
existing successful allocation paths.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the engine loads numpy: imported when a chain runs, not for its defaults
    from tilefit.engine.attempt import Attempt, Failure, Prepared
    from tilefit.engine.strategy import Strategy
    from tilefit.model.capture import Capture
    from tilefit.model.placement import Placement

DEFAULT_FALLBACKS: tuple[str, ...] = ("long-lived/first-fit",)


@dataclass(frozen=True)
class PlaceResult:
    """The retry chain's attempts: production's first, the fallbacks after."""

    attempts: tuple[Attempt, ...]  # in the order run; the last fits, or all failed
    production: int  # how many leading attempts ran production strategies

    @property
    def fits(self) -> bool:
        return bool(self.attempts) and self.attempts[-1].fits

    @property
    def status(self) -> str:
        return "fits" if self.fits else "failed"

    @property
    def strategy(self) -> str | None:
        """The strategy that produced the placement."""
        return self.attempts[-1].strategy.name if self.fits else None

    @property
    def placement(self) -> Placement | None:
        return self.attempts[-1].placement if self.attempts else None

    @property
    def production_failure(self) -> Failure | None:
        """The failure of the last production attempt, when every production attempt failed."""
        if self.production == 0 or self.attempts[self.production - 1].fits:
            return None
        return self.attempts[self.production - 1].failure

    @property
    def fallback(self) -> bool:
        """Whether a further strategy, not production, produced the placement."""
        return self.fits and len(self.attempts) > self.production


def place(
    capture: Capture | Prepared, fallbacks: Iterable[Strategy | str] = DEFAULT_FALLBACKS
) -> PlaceResult:
    """Production strategies first; ``fallbacks`` only when they all fail.

    >>> result = place(capture)  # doctest: +SKIP
    >>> result.strategy, result.placement  # doctest: +SKIP
    ('long-lived/first-fit', Placement(...))
    """
    from tilefit.engine.attempt import prepare, run_until_fits
    from tilefit.verdicts.replay import replay

    prepared = prepare(capture)
    production = replay(prepared).attempts  # an allocator's replayed whole is refereed
    if production and production[-1].fits:
        return PlaceResult(production, len(production))
    return PlaceResult((*production, *run_until_fits(prepared, fallbacks)), len(production))
