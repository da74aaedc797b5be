"""Decide a capture with every route at once: the first decisive answer wins.

Two members share the time limit:

- **find** (``tilefit.search.local.find``): fast placements, never a proof;
- **prove**: the exact search. It first asks the memory elements (a clique
  of conflicting requests needing more elements than they can reach:
  ``tilefit.search.proofs.elements``), then (with no pinned block) the exact
  search for a first look, then the step relaxations
  (``tilefit.search.proofs.steps``): the requests alive at one step must fit on
  their own; then, in turns, the full exact search and a second annealing
  search (``anneal-turns``).

With two or more cores each member runs in its own forked process; the
parent waits for the first decisive answer and stops the other. Where
forking is unsafe (threads running, or inside a daemonic worker, as in
``tilefit batch``) or ``workers=1``, the members take turns in this process.
The members' random choices follow the seed, but the time each route gets
follows the time the others took, so which route answers, and whether one does,
may depend on the machine; a decided verdict never does (a placement and a proof
cannot both exist). When neither decides, the answer carries the best partial placement
either member's annealing holds (``tilefit.search.local.partial``): diagnose finishes
it above the top for the closest placement.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection, wait

from tilefit.engine.attempt import Prepared
from tilefit.model.capture import Capture
from tilefit.model.placement import Placement
from tilefit.search.blocks import SearchModel, build_model
from tilefit.search.exact.solve import Budget, budget_for, search_model
from tilefit.search.exact.subset import shrink
from tilefit.search.local.anneal import Restarts
from tilefit.search.local.contention import Features
from tilefit.search.local.find import find_placement, fresh_annealer
from tilefit.search.local.partial import Partial, better
from tilefit.search.proofs.elements import clique_core
from tilefit.search.proofs.steps import prove_by_steps
from tilefit.search.routes import ALL, INFEASIBLE, SOLVED, TIMEOUT, Routes, check_answer
from tilefit.search.warm import ensure_compiled

EXACT_FIRST_SHARE = 0.4
"""Of the prove member's time, what the exact search may take first."""

STEP_SHARE = 0.2
"""Of the prove member's time, what the step relaxations may take first."""


EXACT_FIRST_NODES = 20_000
"""The exact search's node allowance in the first turn after the proofs; it doubles."""

ANNEAL_RATIO = 4.0
"""After the proofs, the annealing slice per turn, in times the exact turn before it."""

LONG_STALL_UNIT = 100_000
"""Iterations without a better state before the prove member's annealing may begin again
(the find member's restart a hundred times sooner: the two cover both kinds of tile)."""

ANNEAL_FLOOR = 0.05
"""Seconds an annealing slice takes at least."""

ANNEAL_SEED = 7919
"""Added to the seed, so that the prove member's annealing search is not the find member's."""

SUBSET_TRIAL_NODES = 20_000
"""Nodes one trial of the deletion filter may take; past them its blocks stay in."""


GRACE = 0.2
"""Seconds past the deadline after which the parent stops a member that has not answered."""


@dataclass(frozen=True)
class Decision:
    """The portfolio's answer."""

    status: str  # SOLVED, INFEASIBLE or TIMEOUT
    placement: Placement | None  # when SOLVED (the caller's referee checks it: diagnose does)
    member: str | None  # the route that decided (one of ``routes.ROUTES``)
    subset: tuple[str, ...] | None  # when INFEASIBLE: unit or request ids that cannot fit together
    irreducible: bool  # the subset loses its infeasibility without any one of its ids
    seconds: float
    partial: Partial | None = None  # when TIMEOUT: the best partial placement seen, if any
    nodes: int = 0  # the exact search's nodes in the member that answered (0 for find)

    def __post_init__(self) -> None:
        # The vocabulary is checked where it is emitted: a name not in the lists is a bug.
        check_answer(self.status, self.member)


Member = Callable[[Capture, float], Decision]


def decide(
    capture: Capture,
    time_limit: float,
    *,
    workers: int | None = None,
    seed: int = 0,
    routes: Routes = ALL,
) -> Decision:
    """Run the find and prove members within ``time_limit`` seconds; the first decisive wins.

    ``routes`` switches routes off (and the parts of routes in ``routes.SWITCHES``).

    The limit bounds the whole call, down to stopping the members' processes (within
    ``GRACE``), except the one-time compilation of the kernels (``tilefit.search.warm``),
    which happens before it starts.
    """
    started = time.monotonic()
    # Here once, not in every member; a compilation is given back, loading a cache is not.
    started += ensure_compiled()
    deadline = started + time_limit
    members: list[Member] = [
        lambda c, t: _find(c, t, seed, routes),
        lambda c, t: _prove(c, t, seed, routes),
    ]
    if _parallel(workers):
        decision = _race(capture, deadline, members)
    else:
        decision = _turns(capture, max(0.0, deadline - time.monotonic()), seed, routes)
    return replace(decision, seconds=time.monotonic() - started)


def _parallel(workers: int | None) -> bool:
    count = workers if workers is not None else min(2, os.cpu_count() or 1)
    return (
        count >= 2
        and "fork" in multiprocessing.get_all_start_methods()
        and not multiprocessing.current_process().daemon
        and threading.active_count() == 1
    )


def _turns(capture: Capture, time_limit: float, seed: int, routes: Routes) -> Decision:
    """One process: a short proof attempt, then the find member, then the full proof."""
    deadline = time.monotonic() + time_limit
    first = _prove(capture, time_limit * 0.25, seed, routes)
    if first.status != TIMEOUT:
        return first
    found = _find(capture, max(0.0, deadline - time.monotonic()) * 0.5, seed, routes)
    if found.status != TIMEOUT:
        return found
    last = _prove(capture, max(0.0, deadline - time.monotonic()), seed, routes)
    return _closer(_closer(first, found), last)


def _closer(first: Decision, second: Decision) -> Decision:
    """The later decision, carrying the better partial placement of two that timed out."""
    if second.status != TIMEOUT:
        return second
    return replace(second, partial=better(first.partial, second.partial))


def _race(capture: Capture, deadline: float, members: list[Member]) -> Decision:
    context = multiprocessing.get_context("fork")
    pipes: list[Connection] = []
    processes = []
    for member in members:
        theirs, ours = context.Pipe(duplex=False)
        process = context.Process(target=_serve, args=(member, capture, deadline, ours))
        process.start()
        ours.close()
        pipes.append(theirs)
        processes.append(process)
    # Members keep the deadline themselves; one still busy GRACE after it is stopped.
    deadline += GRACE
    answer = Decision(TIMEOUT, None, None, None, False, 0.0)
    try:
        waiting = list(pipes)
        while waiting:
            ready = wait(waiting, timeout=max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            for pipe in [p for p in waiting if p in ready]:
                waiting.remove(pipe)
                try:
                    decision: Decision | Exception = pipe.recv()
                except EOFError:  # the member died; the other may still answer
                    continue
                if isinstance(decision, Exception):  # a bug in a member: say so, as in-process
                    raise decision
                if decision.status != TIMEOUT:
                    return decision
                answer = _closer(answer, decision)
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join()
        for pipe in pipes:
            pipe.close()
    return answer


def _serve(member: Member, capture: Capture, deadline: float, pipe: Connection) -> None:
    # Ctrl-C reaches the whole process group: the parent answers it and stops the members.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        # The deadline, not a duration: the time the fork took is the limit's too.
        pipe.send(member(capture, max(0.0, deadline - time.monotonic())))
    except Exception as error:  # sent to the parent, which raises it
        pipe.send(error)
    finally:
        pipe.close()


def _find(capture: Capture, time_limit: float, seed: int, routes: Routes) -> Decision:
    found = find_placement(capture, time_limit, seed=seed, routes=routes)
    if found.placement is None:
        return Decision(TIMEOUT, None, None, None, False, found.seconds, found.partial)
    return Decision(SOLVED, found.placement, found.route, None, False, found.seconds)


def _prove(capture: Capture, time_limit: float, seed: int = 0, routes: Routes = ALL) -> Decision:
    """``_proofs``, with the nodes its exact searches visited."""
    budgets: list[Budget] = []
    decision = _proofs(capture, time_limit, seed, routes, budgets)
    return replace(decision, nodes=sum(b.nodes for b in budgets))


def _proofs(
    capture: Capture, time_limit: float, seed: int, routes: Routes, budgets: list[Budget]
) -> Decision:
    """The proofs in turn: memory elements, a first look by the exact search when no
    block is pinned (it decides such tiles quickly, as MiniMalloc's are), the step
    relaxations; then, in turns, the exact search and a second annealing search
    (another seed, another start than the find member's; a placement ends the race as
    well as a proof). A proof's subset is shrunk in the time left: one found at the
    limit keeps the subset it came with, reported as not shown irreducible."""
    started = time.monotonic()
    deadline = started + time_limit
    model = build_model(capture)
    this = _Proving(capture, model, time_limit, started, deadline, routes, budgets)
    for name, proof in FIRST_PROOFS:
        if routes.on(name):
            decided = proof(this)
            if decided is not None:
                return decided
    return _anneal_and_exact(capture, model, seed, routes, started, deadline, budgets)


@dataclass(frozen=True)
class _Proving:
    """What the prove member's first proofs share."""

    capture: Capture
    model: SearchModel
    time_limit: float
    started: float
    deadline: float
    routes: Routes
    budgets: list[Budget]


def _elements(p: _Proving) -> Decision | None:
    """A clique of conflicting requests needing more memory elements than they reach."""
    clique = clique_core(p.model)
    if clique is None:
        return None
    return _infeasible(p.model.restricted(clique), "elements", p.started, p.deadline)


def _first_look(p: _Proving) -> Decision | None:
    """The exact search for a share of the time, where no block is pinned (complete
    without enumeration, it often decides such tiles at once, as MiniMalloc's)."""
    if p.model.pinned:
        return None
    budget = _budget(p.budgets, p.routes, p.time_limit * EXACT_FIRST_SHARE)
    return _exact(p.capture, p.model, p.started, budget, p.deadline)


def _steps(p: _Proving) -> Decision | None:
    """The step relaxations: the requests alive at one step must fit on their own."""
    core = prove_by_steps(p.model, time.monotonic() + p.time_limit * STEP_SHARE)
    return None if core is None else _infeasible(core, "steps", p.started, p.deadline)


FIRST_PROOFS: tuple[tuple[str, Callable[[_Proving], Decision | None]], ...] = (
    ("elements", _elements),
    ("exact", _first_look),
    ("steps", _steps),
)
"""The prove member's routes before its turns, in order, each run when its route is on;
the turns (``_anneal_and_exact``) then take ``exact`` and ``anneal-turns``. A test ties
these to ``PROVE_ROUTES``."""


def _budget(
    budgets: list[Budget], routes: Routes, time_limit: float, node_limit: int | None = None
) -> Budget:
    """A new budget (``budget_for``), counted among the member's."""
    budgets.append(budget_for(routes, time_limit, node_limit))
    return budgets[-1]


def _anneal_and_exact(
    capture: Capture,
    model: SearchModel,
    seed: int,
    routes: Routes,
    started: float,
    deadline: float,
    budgets: list[Budget],
) -> Decision:
    """The exact search with a node allowance that doubles, each turn followed by an
    annealing slice ``ANNEAL_RATIO`` times as long (``Restarts``, continued from turn to
    turn, from passes the find member's first round does not make): a small infeasible
    tile is proven in the first turns, a dense feasible one gives most of the time to
    annealing, and neither waits for the other's share to run out."""
    prepared = Prepared.of(capture)
    features = Features.of(model, prepared)
    rng = random.Random(seed + ANNEAL_SEED)
    # Passes from order 1 on (the find member's first round makes pass 0), and restarts far
    # rarer than the find member's: some tiles need one long search.
    annealer = Restarts(
        lambda k: fresh_annealer(model, prepared, features, k + 1, rng), LONG_STALL_UNIT
    )
    exact, anneal = routes.on("exact"), routes.on("anneal-turns")
    nodes = EXACT_FIRST_NODES
    while (exact or anneal) and time.monotonic() < deadline:
        turn = time.monotonic()
        if exact:
            budget = _budget(budgets, routes, max(0.0, deadline - turn), nodes)
            decided = _exact(capture, model, started, budget, deadline)
            if decided is not None:
                return decided
        now = time.monotonic()
        slice_end = min(deadline, now + max(ANNEAL_FLOOR, ANNEAL_RATIO * (now - turn)))
        bases = annealer.run(slice_end if exact else deadline) if anneal else None
        if bases is not None:
            placed = model.placement(capture, bases)
            seconds = time.monotonic() - started
            return Decision(SOLVED, placed, "anneal-turns", None, False, seconds)
        nodes *= 2
    seconds = time.monotonic() - started
    return Decision(TIMEOUT, None, None, None, False, seconds, annealer.partial())


def _exact(
    capture: Capture, model: SearchModel, started: float, budget: Budget, deadline: float
) -> Decision | None:
    """The exact search within ``budget``: a decision, or None when it ran out."""
    outcome = search_model(model, budget)
    if outcome.status == INFEASIBLE:
        return _infeasible(model, "exact", started, deadline)
    if outcome.bases is not None:
        found = model.placement(capture, outcome.bases)
        return Decision(SOLVED, found, "exact", None, False, time.monotonic() - started)
    return None


def _infeasible(core: SearchModel, member: str, started: float, deadline: float) -> Decision:
    """A proof, with an infeasible subset of the model proven infeasible, shrunk in the time
    left (none past the deadline: the limit bounds the subset too)."""
    ids, irreducible = shrink(core, deadline, SUBSET_TRIAL_NODES)
    return Decision(INFEASIBLE, None, member, ids, irreducible, time.monotonic() - started)
