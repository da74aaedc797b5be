"""Every tuning constant of the search and a switch for every pruning: ``SearchParams``.

One frozen object, validated when it is made (ValueError naming the field and the
rule), passed down from ``decide`` to the members, the routes and the kernel's
tables; nothing in ``tilefit.search`` reads a tuning value from a module global.
An experiment changes a field (``dataclasses.replace``), never a module. The
defaults are the values the benchmarks of ``benchmarks/README.md`` measured.

The shared groups follow the search's parts: ``routes`` (which may run), ``prunings``
(the exact kernel's, each switchable, as MiniMalloc's ``SolverParams``), ``exact``
(the exact search's pacing), ``portfolio`` (the prove member's shares and turns),
``find`` (the find member's rounds), ``anneal`` (the annealing search),
``closest`` (the closest placement when nothing decides) and ``least`` (minimising from
a greedy pass). A route's own group lives with the route (``Route.tuning``: route
``choice``'s ``ChoiceParams``, ``cpsat``'s ``CpsatParams``, ``stretches``'
``StretchesParams``): ``SearchParams.of`` gives it, ``tune`` sets it. Every group is a
``Tuned``: each field declared once with its rule (``ruled``). Importing this module
loads neither numba nor the search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeVar

from tilefit.search.routes import ALL, Routes, registered

T = TypeVar("T")
G = TypeVar("G", bound="Tuned")

KEY_LETTERS = "WAT"
"""The exact search's ordering keys: W lifetime width, A width x size, T largest section total."""


def _number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


_RULES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "whole": (lambda v: isinstance(v, int) and _number(v) and v > 0, "a whole number above 0"),
    "count": (lambda v: isinstance(v, int) and _number(v) and v >= 0, "a whole number, 0 or more"),
    "positive": (lambda v: _number(v) and v > 0, "a number above 0"),
    "share": (lambda v: _number(v) and 0 < v <= 1, "a number in (0, 1]"),
    "fraction": (lambda v: _number(v) and 0 <= v <= 1, "a number in [0, 1]"),
    "switch": (lambda v: isinstance(v, bool), "a bool"),
    "ordering": (
        lambda v: isinstance(v, str) and sorted(v) == sorted(KEY_LETTERS),
        f"an order of the letters {KEY_LETTERS}",
    ),
}
"""What each rule of ``ruled`` asks of a value, and how an error says it."""


def ruled(default: T, rule: str) -> T:
    """A field of a ``Tuned`` group: its default and the rule of ``_RULES`` each value
    must obey, declared once, beside the field."""
    if rule not in _RULES:
        raise ValueError(f"no rule named {rule!r}: one of {', '.join(_RULES)}")
    made: T = field(default=default, metadata={"rule": rule})
    return made


@dataclass(frozen=True)
class Tuned:
    """A frozen group of parameters, checked when it is made: each field obeys the rule it
    was declared with (``ruled``; a tuple: it is not empty, and each of its values does),
    else a ValueError naming the group, the field and the rule; a field declared without
    a rule is a bug here (TypeError). A route's own group lives with the route
    (``tilefit.search.routes.Route.tuning``)."""

    def __post_init__(self) -> None:
        kind = type(self).__name__
        for f in fields(self):
            rule = f.metadata.get("rule")
            if rule is None:
                raise TypeError(f"{kind}: no rule for {f.name}")
            value = getattr(self, f.name)
            if value == ():
                raise ValueError(f"{kind}.{f.name}: give at least one value")
            holds, wanted = _RULES[rule]
            for v in value if isinstance(value, tuple) else (value,):
                if not holds(v):
                    raise ValueError(f"{kind}.{f.name}: {v!r} is not {wanted}")


@dataclass(frozen=True)
class Prunings(Tuned):
    """The exact kernel's prunings that can be switched off (each is sound alone and in
    any combination: ``tests/search/test_search_prunings.py`` runs every one against brute
    force). Where each acts: ``tilefit.search.kernel.branch``'s module text."""

    dominance: bool = ruled(True, "switch")
    """Skip a candidate at or above some unplaced block's lowest top."""
    decomposition: bool = ruled(True, "switch")
    """Solve apart the sides of a section boundary that nothing unplaced crosses."""
    twin: bool = ruled(True, "switch")
    """Of interchangeable blocks, choose one only once its twin of lower rank is placed."""
    stretch: bool = ruled(False, "switch")
    """The stretch bound (``tilefit.search.kernel.place.stretches_fit``): off unless asked
    for; in the portfolio it decided no tile more (benchmarks/README.md, "Issue 20")."""

    @classmethod
    def none(cls) -> Prunings:
        """Every switchable pruning off."""
        return cls(dominance=False, decomposition=False, twin=False, stretch=False)


@dataclass(frozen=True)
class ExactParams(Tuned):
    """The exact search's pacing (``tilefit.search.exact.solve``, ``kernel.driver``)."""

    orderings: tuple[str, ...] = ruled(("WAT", "TAW", "TWA"), "ordering")
    """Static orderings it restarts over, keys descending (letters of ``KEY_LETTERS``)."""
    learning: bool = ruled(False, "switch")
    """Restarts that learn (TelaMalloc, ASPLOS 2023): each ranks first, before the
    ordering's keys, the blocks under which the runs before failed most often. Off: in
    ``benchmarks/routes.py`` on the densest tiles it decided none more (issue 30)."""
    chunk: int = ruled(4096, "whole")
    """Nodes between deadline checks, at most."""
    first_chunk: int = ruled(64, "whole")
    """Nodes of the first kernel call, before the pace of the search is known."""
    slice: float = ruled(0.05, "positive")
    """Seconds a kernel call may take at the measured pace (one node can cost
    milliseconds on a large capture)."""
    copy_limit: int = ruled(1 << 20, "count")
    """Candidate-list entries (8 MB) within which each frame copies its list; beyond, a
    child's list is built over its parent's (``kernel.frames.descend``)."""
    trail_start: int = ruled(1 << 16, "count")
    """Trail entries a run starts with (at least one step's); it grows on demand."""
    members_most: int = ruled(64_000_000, "count")
    """Members the sections of a search may hold (8 bytes each), past which it gives up as
    if out of time: S_1's 28,526 buffers make 49 million; a million made-up buffers would
    make 5 billion, 37 GiB."""
    member_seconds: float = ruled(1e-7, "positive")
    """Seconds the kernel's tables take per section member, as a search estimates their
    build before it starts (S_1's 49 million: 3.5 s on a quiet core here, 7 s beside three
    busy loops): the build cannot read the clock, so a search whose tables would take more
    than ``build_share`` of its time gives up at once, as if out of time (issue 48)."""
    build_share: float = ruled(0.5, "share")
    """The share of a search's time its tables' estimated build may take."""
    members_always: int = ruled(1_000_000, "count")
    """Members a search builds its tables for whatever time it has (about 0.1 s): the
    estimate stops only the builds that could overrun a deadline by seconds."""


@dataclass(frozen=True)
class PortfolioParams(Tuned):
    """The prove member's shares and turns (``tilefit.search.portfolio``)."""

    exact_first_share: float = ruled(0.4, "share")
    """Of the prove member's time, what the exact search may take first."""
    step_share: float = ruled(0.2, "share")
    """Of the prove member's time, what the step relaxations may take first."""
    step_first_nodes: int = ruled(500, "whole")
    """Nodes the step relaxations' first exact search of a step may take; it doubles."""
    exact_first_nodes: int = ruled(20_000, "whole")
    """The exact search's node allowance in the first turn after the proofs; it doubles."""
    paced_turns: bool = ruled(False, "switch")
    """Pace the exact search's turns by time (``first_turn_seconds``, doubling) instead of
    by nodes: a node costs microseconds on a small tile and milliseconds on a large one.
    Off: in ``benchmarks/routes.py`` on the densest tiles it decided none more (issue 30)."""
    first_turn_seconds: float = ruled(0.05, "positive")
    """With ``paced_turns``, the exact search's first turn after the proofs; it doubles."""
    anneal_ratio: float = ruled(4.0, "positive")
    """After the proofs, the annealing slice per turn, in times the exact turn before it."""
    anneal_floor: float = ruled(0.05, "positive")
    """Seconds an annealing slice takes at least."""
    long_stall_unit: int = ruled(100_000, "whole")
    """Iterations without a better state before the prove member's annealing may begin
    again (the find member's restart a hundred times sooner)."""
    anneal_seed: int = ruled(7919, "count")
    """Added to the seed, so that the prove member's annealing is not the find member's."""
    subset_trial_nodes: int = ruled(20_000, "whole")
    """Nodes one trial of the deletion filter may take; past them its blocks stay in."""
    grace: float = ruled(0.2, "positive")
    """Seconds past the deadline after which the parent stops a member still working."""
    turns_proof_share: float = ruled(0.25, "share")
    """Where the members take turns in one process: the first proof attempt's share."""
    turns_find_share: float = ruled(0.5, "share")
    """... then the find member's share of what is left (the rest: the full proof)."""


@dataclass(frozen=True)
class FindParams(Tuned):
    """The find member's rounds (``tilefit.search.local.find``)."""

    first_nodes: int = ruled(2_000, "whole")
    """The kernel's node allowance per call in round 0; it doubles every round."""
    anneal_shares: tuple[float, ...] = ruled((0.5, 0.6, 0.75, 0.85), "fraction")
    """Of each round's time, what the annealing route gets, by round (the last for every
    later one): the cheap routes win most tiles of lower density in their first rounds."""
    window: int = ruled(24, "whole")
    """Blocks unplaced around the failing unit in round 0; the window grows with the rounds."""


@dataclass(frozen=True)
class AnnealParams(Tuned):
    """The annealing search (``tilefit.search.local.anneal``): ruin and recreate."""

    temperature: float = ruled(0.4, "positive")
    """The starting temperature, in mean block areas."""
    period: int = ruled(15_000, "whole")
    """Iterations from hot to cold; then the search restarts, hot, from the best state seen."""
    evict_share: float = ruled(0.7, "fraction")
    """Of the iterations, those that evict (the others free a band)."""
    cheapest_share: float = ruled(0.5, "fraction")
    """Of the iterations, those that send u to the base displacing least (the others: at
    random)."""
    others: float = ruled(6.0, "positive")
    """About this many other blocks left out are offered a place again in each iteration."""
    reach: float = ruled(1.0, "positive")
    """A band reaches 1-4 times this many of u's sizes on either side of its base."""
    whole_share: float = ruled(0.5, "fraction")
    """Of the cheapest bases, those that weigh a touched block by its whole area, not by
    the area overlapped (an eviction costs the whole block)."""
    chunk: int = ruled(500, "whole")
    """Iterations between deadline checks."""
    stall_unit: int = ruled(1_000, "whole")
    """Iterations without a better state after which the find member's search may begin
    again (``Restarts``, times Luby's sequence)."""
    pair_limit: int = ruled(4_000_000, "whole")
    """Piece pairs (each direction) beyond which the route's tables are not built (about
    200 MB): a capture of many long-lived blocks, for which the route would be slow anyway."""


@dataclass(frozen=True)
class ClosestParams(Tuned):
    """The closest placement when nothing decides (``tilefit.search.closest``)."""

    greedy_rounds: int = ruled(8, "count")
    """Random constraint-aware greedy orders tried besides the fixed strategies."""
    probe_seconds: float = ruled(1.0, "positive")
    """Seconds one probe of the descent anneals at most before looking higher."""
    probe_stall: int = ruled(30_000, "whole")
    """Iterations without a better state after which a probe gives up early (two of the
    annealing's periods): on a small capture a probe out of reach ends in milliseconds."""
    first_cut: float = ruled(0.25, "share")
    """The share of the overflow the descent's first probe asks to remove; halved after a
    probe that fails, doubled (up to this) after one that succeeds."""
    share: float = ruled(0.15, "fraction")
    """Of an undecided ``diagnose`` or ``solve``'s limit, what the closest placement is given
    (the greedy passes, then the descent); the search has the rest."""
    seconds: float = ruled(2.0, "positive")
    """Without the descent: at most this long, or the time left if shorter, for the greedy
    passes (they stop at their deadline once one has fitted, so one may run past it)."""


@dataclass(frozen=True)
class LeastParams(Tuned):
    """Minimising from a greedy pass (``solve --minimize``; ``tilefit.verdicts.searching``)."""

    passes_share: float = ruled(0.25, "share")
    """Of the limit, what the strategies' greedy passes may take once one has fitted."""
    bound_share: float = ruled(1 / 3, "share")
    """Of the time left, what the exact probe at the lower bound itself may take."""
    reorder_share: float = ruled(0.4, "share")
    """Of the time left, what those passes may take; the exact search's probes have the rest."""
    seed: int = ruled(1, "count")
    """Seed of the random orders (the same capture and time: the same passes)."""
    windows: bool = ruled(True, "switch")
    """Raise the lower bound by windows of steps around the busiest ones, each refuted by
    the exact search on its transients (``tilefit.search.proofs.least``)."""
    windows_share: float = ruled(0.1, "share")
    """Of the time left once the probe at the bound has not closed the bracket, what the
    windows may take."""
    transients_most: int = ruled(48, "count")
    """The most transients of a window the exact search is asked about."""
    centres: int = ruled(6, "count")
    """The busiest steps the windows grow from."""
    window_probe_share: float = ruled(0.5, "share")
    """Of the windows' time left, the most one exact probe of a window may take."""


@dataclass(frozen=True)
class SearchParams:
    """Every parameter of one search: which routes run, which prunings prune, the tuning of
    each shared part (the groups below), and each route's own group (``Route.tuning``:
    ``of``), by default its defaults (see the module text)."""

    routes: Routes = ALL
    prunings: Prunings = field(default_factory=Prunings)
    exact: ExactParams = field(default_factory=ExactParams)
    portfolio: PortfolioParams = field(default_factory=PortfolioParams)
    find: FindParams = field(default_factory=FindParams)
    anneal: AnnealParams = field(default_factory=AnnealParams)
    closest: ClosestParams = field(default_factory=ClosestParams)
    least: LeastParams = field(default_factory=LeastParams)
    tuned: tuple[Tuned, ...] = ()
    """The routes' own groups given (``tune``), one per group; a group not given is its
    defaults (``of``)."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "tuned":
                self._check_tuned(value)
                continue
            kind: type = type(f.default) if f.name == "routes" else f.default_factory  # type: ignore[assignment]
            if not isinstance(value, kind):
                raise ValueError(f"SearchParams.{f.name}: {value!r} is not a {kind.__name__}")

    @staticmethod
    def _check_tuned(tuned: object) -> None:
        """Each a route's own group (``Route.tuning``), one per group."""
        if not isinstance(tuned, tuple):
            raise ValueError(f"SearchParams.tuned: {tuned!r} is not a tuple of groups")
        if not tuned:
            return
        owned = {r.tuning for r in registered() if r.tuning is not None}
        for group in tuned:
            if type(group) not in owned:
                raise ValueError(f"SearchParams.tuned: {group!r} is no route's own group")
        if len({type(group) for group in tuned}) < len(tuned):
            raise ValueError("SearchParams.tuned: a group given twice")

    def of(self, kind: type[G]) -> G:
        """The route's own group of that kind: the one given, else its defaults."""
        for group in self.tuned:
            if isinstance(group, kind):
                return group
        return kind()

    def tune(self, *groups: Tuned) -> SearchParams:
        """The same parameters, with these routes' own groups."""
        kinds = {type(g) for g in groups}
        kept = tuple(g for g in self.tuned if type(g) not in kinds)
        return replace(self, tuned=(*kept, *groups))

    @classmethod
    def only(cls, routes: list[str] | tuple[str, ...]) -> SearchParams:
        """These routes and no other, everything else by default."""
        return cls(routes=Routes.only(routes))


DEFAULT = SearchParams()
"""The parameters ``solve``, ``diagnose`` and ``batch`` run with."""
