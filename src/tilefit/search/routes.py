"""The search's vocabulary: its statuses, the members its routes run in, the registry of
routes, the strategy names of the placements they find, and which routes a run may take.

A route is one class (a subclass of ``Route`` that names itself), which registers itself
when its module is imported; nothing else lists it. The portfolio's members run the
routes of the registry (``tilefit.search.proof`` and ``tilefit.search.local.find``), and
the schema's ``search_route`` enum (``tilefit.output.schema``), the CLI's sentences and
docs/search.md's table are read from it. Importing this module loads neither numba nor
the search; asking for the whole registry (``registered``) imports every module of
``tilefit.search`` once, so that each route has registered itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from importlib import import_module
from typing import Any, ClassVar


class Status(StrEnum):
    """What the search answered: a placement, a proof that none exists, or neither in time
    (the JSON output writes the value)."""

    SOLVED = "solved"
    INFEASIBLE = "infeasible"
    TIMEOUT = "timeout"


SOLVED, INFEASIBLE, TIMEOUT = Status.SOLVED, Status.INFEASIBLE, Status.TIMEOUT
STATUSES = tuple(Status)


class Member(StrEnum):
    """Where a route runs: ``bound``, in ``diagnose`` before any search
    (``tilefit.verdicts``); ``find`` and ``prove``, the portfolio's two members;
    ``closest``, after the portfolio ends undecided (``tilefit.search.closest``), in the
    time kept for the closest placement; ``least``, minimising from a greedy pass
    (``tilefit.verdicts.searching.least_rung``). Their order is the registry's."""

    BOUND = "bound"
    FIND = "find"
    PROVE = "prove"
    CLOSEST = "closest"
    LEAST = "least"


BOUND, FIND, PROVE, CLOSEST, LEAST = tuple(Member)
MEMBERS = tuple(Member)


class Route:
    """One route that may decide a capture, as a class: its ``name`` (what ``diagnose
    --json`` reports as ``search_route``), the ``member`` it runs in, its ``rank`` there
    (the member takes its routes by rank), whether it ``proves`` that no placement exists
    and whether it ``places``, how a verdict says it decided (``says``), and its own
    parameters (``tuning``: a frozen, validated dataclass whose defaults ``SearchParams``
    gives it, ``SearchParams.of``). A class that names itself is registered as it is made,
    its attributes checked (ValueError); a class that does not (a kind of route, as
    ``tilefit.search.proof.Proof``) is not. How a route runs is its kind's: the prove
    member's routes ``run(problem, deadline, params)`` (``Proof``), the find member's
    ``place`` a round's pass (``tilefit.search.local.find.Find``)."""

    name: ClassVar[str]
    member: ClassVar[Member]
    rank: ClassVar[int]
    proves: ClassVar[bool]
    places: ClassVar[bool]
    says: ClassVar[str]
    tuning: ClassVar[type | None] = None
    strategy: ClassVar[str | None] = None  # its placements' strategy name: ``search:NAME``

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:
            _register(cls)


_REGISTRY: dict[str, type[Route]] = {}
"""Every route class made so far, by name (a registry: written once per class, as its
module is imported)."""


def _register(kind: type[Route]) -> None:
    name = kind.name
    for attribute in ("member", "rank", "proves", "places", "says"):
        if not hasattr(kind, attribute):
            raise ValueError(f"route {name!r} does not say its {attribute}")
    if not isinstance(name, str) or not name or name != name.strip():
        raise ValueError(f"route {name!r}: a name is a word")
    if kind.member not in MEMBERS:
        raise ValueError(f"route {name!r}: member {kind.member!r} is not one of {MEMBERS}")
    if not (kind.proves or kind.places):
        raise ValueError(f"route {name!r} neither proves nor places")
    if not kind.says:
        raise ValueError(f"route {name!r} does not say what it shows")
    known = _REGISTRY.get(name)
    if known is not None and known.__qualname__ != kind.__qualname__:
        raise ValueError(f"route {name!r} is registered already, by {known.__module__}")
    _REGISTRY[name] = kind  # a module imported again registers its class again


class Pieces(Route):
    """The pieces bound's route (``tilefit.bounds.pieces``), the one that is no search: the
    ladder's bounds rung decides by it before any search (``tilefit.verdicts.ladder``)."""

    name = "pieces"
    member = BOUND
    rank = 0
    proves, places = True, False
    says = (
        "at one step the requests need more than the stretches of memory that can hold "
        "them (a stretch shorter than a request, aligned, cannot hold it)"
    )


PIECES = Pieces.name


def _order(kind: type[Route]) -> tuple[int, int, str]:
    return MEMBERS.index(kind.member), kind.rank, kind.name


def registered() -> tuple[type[Route], ...]:
    """Every route, by member then rank (the order of docs/search.md's table and of the
    schema's enum): each module of ``tilefit.search`` imported once first, so that every
    route of the package has registered itself (a route made elsewhere registers when its
    module is imported)."""
    import pkgutil  # only where every route is asked for: most commands name theirs

    import tilefit.search as package

    for found in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        import_module(found.name)
    return tuple(sorted(_REGISTRY.values(), key=_order))


def of_member(member: Member) -> tuple[type[Route], ...]:
    """The routes of ``member``, by rank."""
    return tuple(r for r in registered() if r.member == member)


def names(among: Iterable[type[Route]] | None = None) -> tuple[str, ...]:
    """The names of ``among`` (default: every route)."""
    return tuple(r.name for r in (registered() if among is None else among))


def switchable() -> tuple[str, ...]:
    """The routes a run may switch off (``Routes``): every route but the bound's."""
    return tuple(r.name for r in registered() if r.member != BOUND)


def route(name: str) -> type[Route]:
    """The route of that name (ValueError if there is none). The routes registered so far
    are asked first: the pieces bound's route needs no search imported."""
    known = _REGISTRY.get(name)
    if known is None:
        known = next((r for r in registered() if r.name == name), None)
    if known is None:
        raise ValueError(f"unknown search route: {name}")
    return known


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


def check_answer(status: str, name: str | None) -> None:
    """What a search reports, checked where it is emitted (ValueError, not ``assert``,
    which ``python -O`` removes): a known status, and a route that searched named exactly
    when the status is decided, one that may give that answer (a placement by a route that
    places, a proof by one that proves)."""
    if status not in STATUSES:
        raise ValueError(f"unknown search status: {status!r}")
    if (name is None) != (status == TIMEOUT):
        raise ValueError(f"status {status!r} with route {name!r}")
    if name is None:
        return
    decided = route(name)
    if decided.member == BOUND:
        raise ValueError(f"route {name!r} is a bound's, not the search's")
    if not (decided.places if status == SOLVED else decided.proves):
        raise ValueError(f"route {name!r} does not answer {status!r}")


EXACT_SEARCH = "exact-search"
"""The strategy name of a placement that the exact kernel found (route ``exact``); a
placement found by another route is named ``search:ROUTE``."""

SEARCH_PARTIAL = "search:partial"
"""The strategy name of a closest placement finished from the annealing's best partial
placement (``tilefit.search.closest``): not a placement of the capture, so not a route's."""

SEARCH_DESCENT = "search:descent"
"""The strategy name of a closest placement lowered by annealing in less extra memory
(``tilefit.search.closest.Descent``): the route's, whether it fits below the memory's top
(a placement that decides) or not (the closest placement)."""


def strategy_of(name: str) -> str:
    """The strategy name a placement found by route ``name`` carries: the route's own
    (the exact kernel's ``exact-search``), else ``search:ROUTE``."""
    placing = route(name)
    if not placing.places:
        raise ValueError(f"route {name!r} finds no placement")
    return placing.strategy or f"search:{name}"


def _known(given: Iterable[str]) -> frozenset[str]:
    """``given``, once each is a route a run may switch (ValueError naming those that are
    not)."""
    found = frozenset(given)
    unknown = sorted(found - set(switchable()))
    if unknown:
        raise ValueError(f"unknown search route(s): {', '.join(unknown)}")
    return found


@dataclass(frozen=True)
class Routes:
    """Which routes a run may take: every route unless switched off (for an ablation, or a
    test that shows one route deciding alone). The one switch of every route, the closest
    placement's descent and the least rung's reorder included. The kernel's prunings are
    switched in ``tilefit.search.params.Prunings``."""

    off: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if self.off:
            _known(self.off)

    @classmethod
    def without(cls, given: Iterable[str]) -> Routes:
        """Every route but ``given``."""
        return cls(frozenset(given))

    @classmethod
    def only(cls, given: Iterable[str]) -> Routes:
        """``given`` and no other route."""
        return cls(frozenset(switchable()) - _known(given))

    def on(self, name: str | type[Route]) -> bool:
        """Whether a run may take that route (a class or its name)."""
        return (name if isinstance(name, str) else name.name) not in self.off

    def any_on(self, among: Iterable[type[Route]]) -> bool:
        """Whether a run may take one of ``among`` at least."""
        return any(self.on(r) for r in among)


ALL = Routes()
"""Every route on: what ``solve`` and ``diagnose`` run."""
