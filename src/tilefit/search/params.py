"""Every tuning constant of the search and a switch for every pruning: ``SearchParams``.

One frozen object, validated when it is made (ValueError naming the field and the
rule), passed down from ``decide`` to the members, the routes and the kernel's
tables; nothing in ``tilefit.search`` reads a tuning value from a module global.
An experiment changes a field (``dataclasses.replace``), never a module. The
defaults are the values the benchmarks of ``benchmarks/README.md`` measured.

The groups follow the search's parts: ``routes`` (which may run), ``prunings``
(the exact kernel's, each switchable, as MiniMalloc's ``SolverParams``), ``exact``
(the exact search's pacing), ``portfolio`` (the prove member's shares and turns),
``find`` (the find member's rounds), ``anneal`` (the annealing search) and
``closest`` (the closest placement when nothing decides), ``choice`` (the choice
relaxation's proof), ``least`` (minimising from a greedy pass), ``cpsat`` (route
``cpsat``, OR-Tools CP-SAT) and ``stretches`` (route ``stretches``, the decomposition
over stretches). Importing this module
loads neither numba nor the search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from tilefit.search.routes import ALL, Routes

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
"""What each rule of ``_check`` asks of a value, and how an error says it."""


def _check(group: object, rules: dict[str, str]) -> None:
    """Each field of ``group`` obeys its rule of ``_RULES`` (a tuple: it is not empty,
    and each of its values does); a field without a rule is a bug here."""
    kind = type(group).__name__
    unruled = {f.name for f in fields(group)} - set(rules)  # type: ignore[arg-type]
    if unruled:
        raise TypeError(f"{kind}: no rule for {', '.join(sorted(unruled))}")
    for name, rule in rules.items():
        value = getattr(group, name)
        if value == ():
            raise ValueError(f"{kind}.{name}: give at least one value")
        holds, wanted = _RULES[rule]
        for v in value if isinstance(value, tuple) else (value,):
            if not holds(v):
                raise ValueError(f"{kind}.{name}: {v!r} is not {wanted}")


@dataclass(frozen=True)
class Prunings:
    """The exact kernel's prunings that can be switched off (each is sound alone and in
    any combination: ``tests/test_search_prunings.py`` runs every one against brute
    force). Where each acts: ``tilefit.search.kernel.branch``'s module text."""

    dominance: bool = True
    """Skip a candidate at or above some unplaced block's lowest top."""
    decomposition: bool = True
    """Solve apart the sides of a section boundary that nothing unplaced crosses."""
    twin: bool = True
    """Of interchangeable blocks, choose one only once its twin of lower rank is placed."""
    stretch: bool = False
    """The stretch bound (``tilefit.search.kernel.place.stretches_fit``): off unless asked
    for; in the portfolio it decided no tile more (benchmarks/README.md, "Issue 20")."""

    def __post_init__(self) -> None:
        for f in fields(self):
            if not isinstance(getattr(self, f.name), bool):
                raise ValueError(f"Prunings.{f.name}: {getattr(self, f.name)!r} is not a bool")

    @classmethod
    def none(cls) -> Prunings:
        """Every switchable pruning off."""
        return cls(dominance=False, decomposition=False, twin=False, stretch=False)


@dataclass(frozen=True)
class ExactParams:
    """The exact search's pacing (``tilefit.search.exact.solve``, ``kernel.driver``)."""

    orderings: tuple[str, ...] = ("WAT", "TAW", "TWA")
    """Static orderings it restarts over, keys descending (letters of ``KEY_LETTERS``)."""
    learning: bool = False
    """Restarts that learn (TelaMalloc, ASPLOS 2023): each ranks first, before the
    ordering's keys, the blocks under which the runs before failed most often. Off: in
    ``benchmarks/routes.py`` on the densest tiles it decided none more (issue 30)."""
    chunk: int = 4096
    """Nodes between deadline checks, at most."""
    first_chunk: int = 64
    """Nodes of the first kernel call, before the pace of the search is known."""
    slice: float = 0.05
    """Seconds a kernel call may take at the measured pace (one node can cost
    milliseconds on a large capture)."""
    copy_limit: int = 1 << 20
    """Candidate-list entries (8 MB) within which each frame copies its list; beyond, a
    child's list is built over its parent's (``kernel.frames.descend``)."""
    trail_start: int = 1 << 16
    """Trail entries a run starts with (at least one step's); it grows on demand."""
    members_most: int = 64_000_000
    """Members the sections of a search may hold (8 bytes each), past which it gives up as
    if out of time: S_1's 28,526 buffers make 49 million; a million made-up buffers would
    make 5 billion, 37 GiB."""

    def __post_init__(self) -> None:
        rules = {"orderings": "ordering", "learning": "switch", "chunk": "whole"}
        rules |= {"first_chunk": "whole", "members_most": "count"}
        _check(self, {**rules, "slice": "positive", "copy_limit": "count", "trail_start": "count"})


@dataclass(frozen=True)
class PortfolioParams:
    """The prove member's shares and turns (``tilefit.search.portfolio``)."""

    exact_first_share: float = 0.4
    """Of the prove member's time, what the exact search may take first."""
    step_share: float = 0.2
    """Of the prove member's time, what the step relaxations may take first."""
    step_first_nodes: int = 500
    """Nodes the step relaxations' first exact search of a step may take; it doubles."""
    exact_first_nodes: int = 20_000
    """The exact search's node allowance in the first turn after the proofs; it doubles."""
    paced_turns: bool = False
    """Pace the exact search's turns by time (``first_turn_seconds``, doubling) instead of
    by nodes: a node costs microseconds on a small tile and milliseconds on a large one.
    Off: in ``benchmarks/routes.py`` on the densest tiles it decided none more (issue 30)."""
    first_turn_seconds: float = 0.05
    """With ``paced_turns``, the exact search's first turn after the proofs; it doubles."""
    anneal_ratio: float = 4.0
    """After the proofs, the annealing slice per turn, in times the exact turn before it."""
    anneal_floor: float = 0.05
    """Seconds an annealing slice takes at least."""
    long_stall_unit: int = 100_000
    """Iterations without a better state before the prove member's annealing may begin
    again (the find member's restart a hundred times sooner)."""
    anneal_seed: int = 7919
    """Added to the seed, so that the prove member's annealing is not the find member's."""
    subset_trial_nodes: int = 20_000
    """Nodes one trial of the deletion filter may take; past them its blocks stay in."""
    grace: float = 0.2
    """Seconds past the deadline after which the parent stops a member still working."""
    turns_proof_share: float = 0.25
    """Where the members take turns in one process: the first proof attempt's share."""
    turns_find_share: float = 0.5
    """... then the find member's share of what is left (the rest: the full proof)."""

    def __post_init__(self) -> None:
        _check(
            self,
            {"exact_first_share": "share", "step_share": "share", "anneal_ratio": "positive"}
            | {"turns_proof_share": "share", "turns_find_share": "share"}
            | {"anneal_floor": "positive", "grace": "positive", "anneal_seed": "count"}
            | {"paced_turns": "switch", "first_turn_seconds": "positive"}
            | dict.fromkeys(("step_first_nodes", "exact_first_nodes"), "whole")
            | dict.fromkeys(("long_stall_unit", "subset_trial_nodes"), "whole"),
        )


@dataclass(frozen=True)
class FindParams:
    """The find member's rounds (``tilefit.search.local.find``)."""

    first_nodes: int = 2_000
    """The kernel's node allowance per call in round 0; it doubles every round."""
    anneal_shares: tuple[float, ...] = (0.5, 0.6, 0.75, 0.85)
    """Of each round's time, what the annealing route gets, by round (the last for every
    later one): the cheap routes win most tiles of lower density in their first rounds."""
    window: int = 24
    """Blocks unplaced around the failing unit in round 0; the window grows with the rounds."""

    def __post_init__(self) -> None:
        _check(self, {"first_nodes": "whole", "anneal_shares": "fraction", "window": "whole"})


@dataclass(frozen=True)
class AnnealParams:
    """The annealing search (``tilefit.search.local.anneal``): ruin and recreate."""

    temperature: float = 0.4
    """The starting temperature, in mean block areas."""
    period: int = 15_000
    """Iterations from hot to cold; then the search restarts, hot, from the best state seen."""
    evict_share: float = 0.7
    """Of the iterations, those that evict (the others free a band)."""
    cheapest_share: float = 0.5
    """Of the iterations, those that send u to the base displacing least (the others: at
    random)."""
    others: float = 6.0
    """About this many other blocks left out are offered a place again in each iteration."""
    reach: float = 1.0
    """A band reaches 1-4 times this many of u's sizes on either side of its base."""
    whole_share: float = 0.5
    """Of the cheapest bases, those that weigh a touched block by its whole area, not by
    the area overlapped (an eviction costs the whole block)."""
    chunk: int = 500
    """Iterations between deadline checks."""
    stall_unit: int = 1_000
    """Iterations without a better state after which the find member's search may begin
    again (``Restarts``, times Luby's sequence)."""
    pair_limit: int = 4_000_000
    """Piece pairs (each direction) beyond which the route's tables are not built (about
    200 MB): a capture of many long-lived blocks, for which the route would be slow anyway."""

    def __post_init__(self) -> None:
        _check(
            self,
            {"temperature": "positive", "period": "whole", "others": "positive"}
            | {"evict_share": "fraction", "cheapest_share": "fraction", "reach": "positive"}
            | {"whole_share": "fraction", "chunk": "whole", "stall_unit": "whole"}
            | {"pair_limit": "whole"},
        )


@dataclass(frozen=True)
class ClosestParams:
    """The closest placement when nothing decides (``tilefit.search.closest``)."""

    greedy_rounds: int = 8
    """Random constraint-aware greedy orders tried besides the fixed strategies."""
    descent: bool = True
    """Lower the best of those by annealing in less extra memory (``closest.descend``):
    the closest placement from minimising the top, not only from stacking what is left.
    ``diagnose`` runs it only with the search and its ``anneal`` route on."""
    probe_seconds: float = 1.0
    """Seconds one probe of the descent anneals at most before looking higher."""
    probe_stall: int = 30_000
    """Iterations without a better state after which a probe gives up early (two of the
    annealing's periods): on a small capture a probe out of reach ends in milliseconds."""
    first_cut: float = 0.25
    """The share of the overflow the descent's first probe asks to remove; halved after a
    probe that fails, doubled (up to this) after one that succeeds."""
    share: float = 0.15
    """Of an undecided ``diagnose`` or ``solve``'s limit, what the closest placement is given
    (the greedy passes, then the descent); the search has the rest."""
    seconds: float = 2.0
    """Without the descent: at most this long, or the time left if shorter, for the greedy
    passes (they stop at their deadline once one has fitted, so one may run past it)."""

    def __post_init__(self) -> None:
        _check(
            self,
            {"greedy_rounds": "count", "descent": "switch", "probe_seconds": "positive"}
            | {"probe_stall": "whole", "first_cut": "share", "share": "fraction"}
            | {"seconds": "positive"},
        )


@dataclass(frozen=True)
class ChoiceParams:
    """The choice relaxation's proof (``tilefit.search.proofs.choice``)."""

    nodes: int = 2_000
    """Branch-and-bound nodes HiGHS may take on one 0-1 program: a limit of work, not of
    time, so that the answer depends on the capture alone."""
    hulls: int = 8
    """Per stretch, the most shared hulls (the parts of it some blocks are confined to)
    given constraints of their own besides the whole stretch's."""
    share: float = 0.1
    """Of the prove member's time, what the proof and the shrinking of its core may take."""
    table_limit: int = 20_000_000
    """Blocks x steps beyond which the proof's table (8 bytes an entry: 160 MB) is not
    built: a capture of tens of thousands of blocks over thousands of steps."""
    where_seconds: float = 1.0
    """At most this long to find the steps of a core the choice proved, for the reader (a
    few 0-1 programs of the core alone: milliseconds for tile 847's)."""

    def __post_init__(self) -> None:
        _check(
            self,
            {"nodes": "whole", "hulls": "count", "share": "share", "table_limit": "whole"}
            | {"where_seconds": "positive"},
        )


@dataclass(frozen=True)
class StretchesParams:
    """Route ``stretches``: the choice of stretch as master, each stretch placed or refuted
    alone as slave (``tilefit.search.stretches``; switched off as a route, ``Routes``)."""

    share: float = 0.2
    """Of the prove member's time, what the route may take (every master and slave)."""
    first_nodes: int = 2_000
    """Nodes of the exact search's first look at a stretch, before the find member's
    routes (a small stretch, or one its blocks cannot share, is decided there)."""
    find: bool = True
    """Each stretch then given to the find member's routes, on that stretch alone
    (off: the exact search only)."""
    find_share: float = 0.15
    """Of the route's time, what the find member's routes may take on one stretch."""
    slave_share: float = 0.25
    """Of the route's time, what one stretch may take (the exact search's first look, the
    find member's routes, then the exact search for the rest)."""
    shrink_share: float = 0.1
    """Of the route's time, what shrinking the blocks of one failed stretch to a cut may
    take (past it the cut keeps the blocks it has: weaker, still sound)."""
    rounds: int = 200
    """Choices the master may make before the route gives up."""

    def __post_init__(self) -> None:
        _check(
            self,
            dict.fromkeys(("share", "find_share", "slave_share", "shrink_share"), "share")
            | {"rounds": "whole", "find": "switch", "first_nodes": "whole"},
        )


@dataclass(frozen=True)
class CpsatParams:
    """Route ``cpsat``: OR-Tools CP-SAT from the closest placement
    (``tilefit.search.sat.route``; switched off as a route, ``Routes``)."""

    share: float = 0.5
    """Of the prove member's time, what the route may take (hint, model and solve)."""
    workers: int = 2
    """CP-SAT's threads. With one there is no large neighbourhood search, which is what
    improves the hint: tile 503 of synth seed 2 took 19-23 s with one, 2.5-17 s with two."""
    hint: bool = True
    """Start from the closest placement of greedy passes in the capture extended above its
    top, the top minimised (off: a plain feasibility question within the capacity)."""
    hint_share: float = 0.1
    """Of the route's time, what the hint's greedy passes may take."""
    area: bool = False
    """Minimise the bytes x steps above the top instead of the top itself."""
    timetabling: bool = True
    """``no_overlap_2d``'s timetabling (CP-SAT's ``use_timetabling_in_no_overlap_2d``)."""
    energetic: bool = True
    """``no_overlap_2d``'s energetic reasoning (``use_energetic_reasoning_in_no_overlap_2d``)."""
    probing: int = 0
    """CP-SAT's ``cp_model_probing_level``: its presolve probing took 12 s of tile 503's
    first 13 with the default (2), before any search."""
    proves: bool = False
    """Take CP-SAT's proof of infeasibility (its model is exact within the capacity:
    ``tilefit.search.sat.model``). Off by default: CP-SAT has answered INFEASIBLE for
    feasible models in several releases (OR-Tools issues 4546 in 9.12, 5003 in 9.15, the
    one installed here), and a verdict must never be wrong; its placements count either
    way, refereed."""
    seed: int = 0
    """CP-SAT's ``random_seed``."""
    block_limit: int = 5_000
    """Blocks beyond which the route stands aside: its model is built in Python, which
    no deadline interrupts (about 0.2 s per 1,000 blocks), and CP-SAT's presolve on tens of
    thousands of rectangles would take the route's share before any search."""

    def __post_init__(self) -> None:
        _check(
            self,
            {"block_limit": "whole"}
            | {"share": "share", "workers": "whole", "hint": "switch", "hint_share": "share"}
            | {"area": "switch"}
            | {"timetabling": "switch", "energetic": "switch", "probing": "count"}
            | {"proves": "switch", "seed": "count"},
        )


@dataclass(frozen=True)
class LeastParams:
    """Minimising from a greedy pass (``solve --minimize``; ``tilefit.verdicts.searching``)."""

    passes_share: float = 0.25
    """Of the limit, what the strategies' greedy passes may take once one has fitted."""
    bound_share: float = 1 / 3
    """Of the time left, what the exact probe at the lower bound itself may take."""
    reorder: bool = True
    """Greedy passes in orders drawn from the live profile first (route ``reorder``; a
    uniform capture only: every request its own unit, one allowed interval)."""
    reorder_share: float = 0.4
    """Of the time left, what those passes may take; the exact search's probes have the rest."""
    seed: int = 1
    """Seed of the random orders (the same capture and time: the same passes)."""
    windows: bool = True
    """Raise the lower bound by windows of steps around the busiest ones, each refuted by
    the exact search on its transients (``tilefit.search.proofs.least``)."""
    windows_share: float = 0.2
    """Of the time left once the probe at the bound has not closed the bracket, what the
    windows may take."""
    transients_most: int = 48
    """The most transients of a window the exact search is asked about."""
    centres: int = 6
    """The busiest steps the windows grow from."""
    window_probe_share: float = 0.5
    """Of the windows' time left, the most one exact probe of a window may take."""

    def __post_init__(self) -> None:
        _check(
            self,
            {"passes_share": "share", "bound_share": "share", "reorder": "switch"}
            | {"reorder_share": "share"}
            | {"seed": "count", "windows": "switch", "windows_share": "share"}
            | {"transients_most": "count", "centres": "count", "window_probe_share": "share"},
        )


@dataclass(frozen=True)
class SearchParams:
    """Every parameter of one search: which routes run, which prunings prune, and the
    tuning of each part (see the module text)."""

    routes: Routes = ALL
    prunings: Prunings = field(default_factory=Prunings)
    exact: ExactParams = field(default_factory=ExactParams)
    portfolio: PortfolioParams = field(default_factory=PortfolioParams)
    find: FindParams = field(default_factory=FindParams)
    anneal: AnnealParams = field(default_factory=AnnealParams)
    closest: ClosestParams = field(default_factory=ClosestParams)
    choice: ChoiceParams = field(default_factory=ChoiceParams)
    least: LeastParams = field(default_factory=LeastParams)
    cpsat: CpsatParams = field(default_factory=CpsatParams)
    stretches: StretchesParams = field(default_factory=StretchesParams)

    def __post_init__(self) -> None:
        kinds: dict[str, type] = {
            "routes": Routes,
            "prunings": Prunings,
            "exact": ExactParams,
            "portfolio": PortfolioParams,
            "find": FindParams,
            "anneal": AnnealParams,
            "closest": ClosestParams,
            "choice": ChoiceParams,
            "least": LeastParams,
            "cpsat": CpsatParams,
            "stretches": StretchesParams,
        }
        for name, kind in kinds.items():
            value = getattr(self, name)
            if not isinstance(value, kind):
                raise ValueError(f"SearchParams.{name}: {value!r} is not a {kind.__name__}")

    @classmethod
    def only(cls, routes: list[str] | tuple[str, ...]) -> SearchParams:
        """These routes and no other, everything else by default."""
        return cls(routes=Routes.only(routes))


DEFAULT = SearchParams()
"""The parameters ``solve``, ``diagnose`` and ``batch`` run with."""
