"""The search's vocabulary: its statuses, the routes that decide, the strategy names of the
placements they find, and which routes a run may take.

Every name the search emits is defined here once: the portfolio's members check what
they report against these lists, and the schema, the CLI's texts and docs/json.md are
tested against them (``tests/test_search_routes.py``). Importing this module loads
neither numba nor the search.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

SOLVED = "solved"
INFEASIBLE = "infeasible"
TIMEOUT = "timeout"
STATUSES = (SOLVED, INFEASIBLE, TIMEOUT)

FIND_ROUTES = ("greedy", "completion", "repair", "anneal")
"""The find member's routes (``tilefit.search.local.find``): placements, never a proof."""

PROVE_ROUTES = ("elements", "steps", "exact", "anneal-turns")
"""The prove member's routes (``tilefit.search.portfolio``): ``elements`` and ``steps``
prove infeasibility, ``exact`` finds or proves, and ``anneal-turns`` is the annealing
between its turns, which finds."""

ROUTES = (*FIND_ROUTES, *PROVE_ROUTES)
"""Every route of the portfolio; each can be switched off (``Routes``)."""

SWITCHES = ("stretch-waste",)
"""Parts of routes that a run may switch on (they are off unless asked for), though they
are not routes themselves and never name an answer: ``stretch-waste``, the exact kernel's
stretch bound (``tilefit.search.kernel.place.stretches_fit``) in every search the
portfolio makes."""

PROOF_ROUTES = ("elements", "steps", "exact")
"""The routes that prove infeasibility."""

PLACING_ROUTES = (*FIND_ROUTES, "exact", "anneal-turns")
"""The routes that find placements."""

EXACT_SEARCH = "exact-search"
"""The strategy name of a placement that the exact kernel found (route ``exact``); a
placement found by another route is named ``search:ROUTE``."""

SEARCH_PARTIAL = "search:partial"
"""The strategy name of a closest placement finished from the annealing's best partial
placement (``tilefit.search.closest``): not a placement of the capture, so not a route's."""


def strategy_of(route: str) -> str:
    """The strategy name a placement found by ``route`` carries."""
    _known([route])
    return EXACT_SEARCH if route == "exact" else f"search:{route}"


def _known(names: Iterable[str], among: tuple[str, ...] = ROUTES) -> frozenset[str]:
    """``names``, once each is known (ValueError naming those that are not)."""
    given = frozenset(names)
    unknown = sorted(given - set(among))
    if unknown:
        raise ValueError(f"unknown search route(s) or switch(es): {', '.join(unknown)}")
    return given


@dataclass(frozen=True)
class Routes:
    """Which routes a run may take, and which of the ``SWITCHES`` it uses: every route
    unless switched off (for an ablation, or a test that shows one route deciding alone),
    and the switches in ``using``."""

    off: frozenset[str] = frozenset()
    using: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        _known(self.off)
        _known(self.using, SWITCHES)

    @classmethod
    def without(cls, names: Iterable[str]) -> Routes:
        """Every route but ``names``."""
        return cls(frozenset(names))

    def use(self, names: Iterable[str]) -> Routes:
        """These routes, and the switches ``names`` on as well."""
        return Routes(self.off, self.using | frozenset(names))

    @classmethod
    def only(cls, names: Iterable[str]) -> Routes:
        """``names`` and no other route (every switch stays on)."""
        return cls(frozenset(ROUTES) - _known(names))

    def on(self, route: str) -> bool:
        """Whether a run may take ``route`` (or uses the switch of that name)."""
        return route in self.using if route in SWITCHES else route not in self.off

    def any_on(self, routes: Iterable[str]) -> bool:
        """Whether a run may take one of ``routes`` at least."""
        return any(self.on(r) for r in routes)


ALL = Routes()
"""Every route on: what ``solve`` and ``diagnose`` run."""
