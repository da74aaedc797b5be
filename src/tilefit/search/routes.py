"""The search's vocabulary: its statuses, the routes that decide, the strategy names of the
placements they find, and which routes a run may take.

Every name the search emits is defined here once: the portfolio's members check what
they report against these lists, and the schema, the CLI's texts and docs/json.md are
tested against them (``tests/test_search_routes.py``). Importing this module loads
neither numba nor the search.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import import_module
from typing import Any

SOLVED = "solved"
INFEASIBLE = "infeasible"
TIMEOUT = "timeout"
STATUSES = (SOLVED, INFEASIBLE, TIMEOUT)

PIECES = "pieces"
"""The pieces bound's route (``tilefit.bounds.pieces``), the one that is no search."""

BOUND, FIND, PROVE, CLOSEST, LEAST = "bound", "find", "prove", "closest", "least"
MEMBERS = (BOUND, FIND, PROVE, CLOSEST, LEAST)
"""Where a route runs: ``bound``, in ``diagnose`` before any search (``tilefit.verdicts``);
``find`` and ``prove``, the portfolio's two members; ``closest``, after the portfolio
ends undecided (``tilefit.search.closest``), in the time kept for the closest placement;
``least``, minimising from a greedy pass (``tilefit.verdicts.searching.least_rung``)."""


CHOICE = "choice"
"""The choice proof's route (``tilefit.search.proofs.choice``): ``diagnose`` reads the steps
of its core again for the reader."""

CPSAT = "cpsat"
"""OR-Tools CP-SAT's route (``tilefit.search.sat``), in the prove member."""

STRETCHES = "stretches"
"""The decomposition over stretches (``tilefit.search.stretches``), in the prove member."""

DESCENT = "descent"
"""The closest placement's descent (``tilefit.search.closest.descend``): it decides when a
probe places every block below the memory's top. Not a route of the portfolio, so not
among ``ROUTES``: ``ClosestParams.descent`` switches it."""


REORDER = "reorder"
"""The least rung's greedy passes in orders drawn from the live profile
(``tilefit.search.local.reorder``): not a route of the portfolio, so not among
``ROUTES``: ``LeastParams.reorder`` switches it."""


@dataclass(frozen=True)
class Route:
    """One route that may decide a capture: its name (what ``diagnose --json`` reports as
    ``search_route``), the member it runs in, what it may answer, how a verdict says it
    decided (``says``), and, for a proof the prove member runs before its turns, its runner
    (``"module:function"``, loaded when the member runs: a ``Proving`` in, a ``Decision`` or
    None out). Everything else (the portfolio's order, the schema's enum, the CLI's
    sentences, docs/search.md's table) is read from these entries."""

    name: str
    member: str  # one of MEMBERS
    proves: bool  # may prove that no placement exists
    places: bool  # may find a placement
    says: str  # "decided by ..." / "proof: ...": what it showed, in a few words
    runner: str | None = None  # the prove member's first proofs: "module:function"

    def __post_init__(self) -> None:
        if self.member not in MEMBERS:
            raise ValueError(f"route {self.name!r}: member {self.member!r} is not one of {MEMBERS}")
        if not (self.proves or self.places):
            raise ValueError(f"route {self.name!r} neither proves nor places")
        if self.runner is not None and (self.member != PROVE or ":" not in self.runner):
            raise ValueError(f"route {self.name!r}: a runner is a prove route's module:function")

    def run(self) -> Callable[[Any], Any]:
        """The runner, imported now (ValueError for a route without one)."""
        if self.runner is None:
            raise ValueError(f"route {self.name!r} has no runner")
        module, function = self.runner.split(":")
        found: Callable[[Any], Any] = getattr(import_module(module), function)
        return found


REGISTRY = (
    Route(
        PIECES,
        BOUND,
        proves=True,
        places=False,
        says="at one step the requests need more than the stretches of memory that can hold "
        "them (a stretch shorter than a request, aligned, cannot hold it)",
    ),
    Route("greedy", FIND, False, True, "a constraint-aware greedy pass"),
    Route("completion", FIND, False, True, "the exact search around the pass's pinned blocks"),
    Route("repair", FIND, False, True, "the exact search re-placing a window of the pass"),
    Route("anneal", FIND, False, True, "ruin and recreate with simulated annealing"),
    Route(
        "elements",
        PROVE,
        proves=True,
        places=False,
        says="requests in conflict with each other need more memory elements than they reach",
        runner="tilefit.search.proofs.elements:prove",
    ),
    Route(
        CHOICE,
        PROVE,
        proves=True,
        places=False,
        says="each request keeps one stretch of memory all its life, and no choice of "
        "stretches holds these at every step",
        runner="tilefit.search.proofs.choice:prove",
    ),
    Route(
        "steps",
        PROVE,
        proves=True,
        places=False,
        says="the requests alive at one step cannot be placed together",
        runner="tilefit.search.proofs.steps:prove",
    ),
    Route(
        STRETCHES,
        PROVE,
        proves=True,
        places=True,
        says="with each request's stretch of memory chosen, every stretch was placed on its "
        "own, or no choice was left that the stretches' exact searches had not refuted",
        runner="tilefit.search.stretches:run",
    ),
    Route(
        CPSAT,
        PROVE,
        proves=True,
        places=True,
        says="OR-Tools CP-SAT's search, started from the closest placement, was exhausted "
        "within the memory",
        runner="tilefit.search.sat.route:run",
    ),
    Route(
        "exact",
        PROVE,
        proves=True,
        places=True,
        says="the exact search was exhausted",
        runner="tilefit.search.proving:first_look",
    ),
    Route("anneal-turns", PROVE, False, True, "annealing between the exact search's turns"),
    Route(DESCENT, CLOSEST, False, True, "annealing in less memory ended below the top"),
    Route(REORDER, LEAST, False, True, "greedy passes in orders drawn from the live profile"),
)
"""Every route, in the order of docs/search.md's tables: the find member takes its routes in
this order (``tilefit.search.local.find.STEPS``), the prove member runs the runners in this
order before its turns of ``exact`` and ``anneal-turns``. Adding a route is one entry here
and its module; the names below, the schema's ``search_route`` enum
(``tilefit.output.schema``), the CLI's sentences and docs/search.md's table are read from it
(``tests/test_search_routes.py``)."""

DECIDING_ROUTES = tuple(r.name for r in REGISTRY)
"""Every name a verdict may give as the route that decided (``diagnose``'s
``search_route``)."""

FIND_ROUTES = tuple(r.name for r in REGISTRY if r.member == FIND)
"""The find member's routes (``tilefit.search.local.find``): placements, never a proof."""

PROVE_ROUTES = tuple(r.name for r in REGISTRY if r.member == PROVE)
"""The prove member's routes (``tilefit.search.portfolio``): ``elements``, ``choice`` and
``steps`` prove infeasibility, ``exact`` finds or proves, and ``anneal-turns`` is the
annealing between its turns, which finds."""

ROUTES = (*FIND_ROUTES, *PROVE_ROUTES)
"""Every route of the portfolio; each can be switched off (``Routes``)."""

PROOF_ROUTES = tuple(r.name for r in REGISTRY if r.member != BOUND and r.proves)
"""The portfolio's routes that prove infeasibility."""

PLACING_ROUTES = tuple(r.name for r in REGISTRY if r.places)
"""The routes that find placements."""


def registered() -> tuple[Route, ...]:
    """The registry as it stands when asked (the consumers that derive from it read it
    here, so that a route registered in one entry reaches them all)."""
    return REGISTRY


def first_proofs() -> tuple[Route, ...]:
    """The prove member's routes with a runner, in order: what it runs before its turns."""
    return tuple(r for r in registered() if r.runner is not None)


def proof_says(name: str) -> str:
    """How a verdict says route ``name`` proved it."""
    return route(name).says


def routes_table() -> str:
    """docs/search.md's table of the routes, made from the registry."""
    rows = ["| route | member | proves | places | what it shows |", "|---|---|---|---|---|"]
    for r in registered():
        proves, places = ("yes" if r.proves else "-"), ("yes" if r.places else "-")
        rows.append(f"| `{r.name}` | {r.member} | {proves} | {places} | {r.says} |")
    return "\n".join(rows)


def route(name: str) -> Route:
    """The route of that name (ValueError if there is none)."""
    for known in registered():
        if known.name == name:
            return known
    raise ValueError(f"unknown search route: {name}")


def check_answer(status: str, name: str | None, among: tuple[str, ...] = ROUTES) -> None:
    """What a member reports, checked where it is emitted (ValueError, not ``assert``,
    which ``python -O`` removes): a known status, and a route of ``among`` named exactly
    when the status is decided."""
    if status not in STATUSES:
        raise ValueError(f"unknown search status: {status!r}")
    if (name is None) != (status == TIMEOUT):
        raise ValueError(f"status {status!r} with route {name!r}")
    if name is not None and name not in among:
        raise ValueError(f"route {name!r} is not one of {among}")


EXACT_SEARCH = "exact-search"
"""The strategy name of a placement that the exact kernel found (route ``exact``); a
placement found by another route is named ``search:ROUTE``."""

SEARCH_PARTIAL = "search:partial"
"""The strategy name of a closest placement finished from the annealing's best partial
placement (``tilefit.search.closest``): not a placement of the capture, so not a route's."""

SEARCH_DESCENT = "search:descent"
"""The strategy name of a closest placement lowered by annealing in less extra memory
(``tilefit.search.closest.descend``): route ``descent``'s, whether it fits below the
memory's top (a placement that decides) or not (the closest placement)."""


def strategy_of(route: str) -> str:
    """The strategy name a placement found by ``route`` carries."""
    _known([route], PLACING_ROUTES)
    return EXACT_SEARCH if route == "exact" else f"search:{route}"


def _known(names: Iterable[str], among: tuple[str, ...] = ROUTES) -> frozenset[str]:
    """``names``, once each is known (ValueError naming those that are not)."""
    given = frozenset(names)
    unknown = sorted(given - set(among))
    if unknown:
        raise ValueError(f"unknown search route(s): {', '.join(unknown)}")
    return given


@dataclass(frozen=True)
class Routes:
    """Which routes a run may take: every route unless switched off (for an ablation, or
    a test that shows one route deciding alone). The kernel's prunings are switched in
    ``tilefit.search.params.Prunings``."""

    off: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        _known(self.off)

    @classmethod
    def without(cls, names: Iterable[str]) -> Routes:
        """Every route but ``names``."""
        return cls(frozenset(names))

    @classmethod
    def only(cls, names: Iterable[str]) -> Routes:
        """``names`` and no other route."""
        return cls(frozenset(ROUTES) - _known(names))

    def on(self, route: str) -> bool:
        """Whether a run may take ``route``."""
        return route not in self.off

    def any_on(self, routes: Iterable[str]) -> bool:
        """Whether a run may take one of ``routes`` at least."""
        return any(self.on(r) for r in routes)


ALL = Routes()
"""Every route on: what ``solve`` and ``diagnose`` run."""
