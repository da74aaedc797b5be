"""Decide a capture with every route at once: the first decisive answer wins.

Two members share the time limit:

- **find** (``tilefit.search.local.find``): fast placements, never a proof;
- **prove**: the exact search. It first asks the memory elements (a clique
  of conflicting requests needing more elements than they can reach:
  ``tilefit.search.proofs.elements``) and the choice of stretches (each block
  keeps one stretch of memory all its life: ``tilefit.search.proofs.choice``),
  then the step relaxations (``tilefit.search.proofs.steps``): the requests alive
  at one step must fit on their own; then OR-Tools CP-SAT from the closest placement
  (``tilefit.search.sat``), which may place as well as prove; then (with no pinned
  block) the exact search for a first look; then, in turns, the full exact search and
  a second annealing search (``anneal-turns``).

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
import time
from collections.abc import Callable
from dataclasses import replace
from multiprocessing.connection import Connection, wait

from tilefit.engine.attempt import Prepared
from tilefit.model.capture import Capture
from tilefit.search.blocks import SearchModel, build_model
from tilefit.search.compiling import ensure_compiled, fork_is_safe
from tilefit.search.decision import Decision, better
from tilefit.search.exact.solve import Budget
from tilefit.search.local.anneal import Restarts
from tilefit.search.local.contention import Features
from tilefit.search.local.find import find_placement, fresh_annealer
from tilefit.search.params import DEFAULT, SearchParams
from tilefit.search.proving import Proving
from tilefit.search.routes import SOLVED, TIMEOUT, first_proofs

Member = Callable[[Capture, float], Decision]

for _route in first_proofs():  # imported with this module, before any clock starts, so that
    _route.run()  # a forked member does not import them (scipy: 0.5 s) on its own time


def decide(
    capture: Capture,
    time_limit: float,
    *,
    workers: int | None = None,
    seed: int = 0,
    params: SearchParams = DEFAULT,
    model: SearchModel | None = None,
) -> Decision:
    """Run the find and prove members within ``time_limit`` seconds; the first decisive wins.

    ``params`` switches routes and prunings off and tunes every part (``SearchParams``).
    ``model``: the capture's search model, when the caller built it already (the members,
    forked or not, share it).

    The limit bounds the whole call, down to stopping the members' processes (within
    ``params.portfolio.grace``), except the one-time compilation of the kernels
    (``tilefit.search.compiling``), which happens before it starts.
    """
    started = time.monotonic()
    # Here once, not in every member; a compilation is given back, loading a cache is not.
    started += ensure_compiled()
    deadline = started + time_limit
    built = build_model(capture) if model is None else model
    members: list[Member] = [
        lambda c, t: _find(c, built, t, seed, params),
        lambda c, t: _prove(c, built, t, seed, params),
    ]
    if _parallel(workers):
        decision = _race(capture, deadline, members, params.portfolio.grace)
    else:
        left = max(0.0, deadline - time.monotonic())
        decision = _turns(capture, built, left, seed, params)
    return replace(decision, seconds=time.monotonic() - started)


def _parallel(workers: int | None) -> bool:
    count = workers if workers is not None else min(2, os.cpu_count() or 1)
    return count >= 2 and fork_is_safe()


def _turns(
    capture: Capture, model: SearchModel, time_limit: float, seed: int, params: SearchParams
) -> Decision:
    """One process: a short proof attempt, then the find member, then the full proof."""
    deadline = time.monotonic() + time_limit
    shares = params.portfolio
    first = _prove(capture, model, time_limit * shares.turns_proof_share, seed, params)
    if first.status != TIMEOUT:
        return first
    left = max(0.0, deadline - time.monotonic())
    found = _find(capture, model, left * shares.turns_find_share, seed, params)
    if found.status != TIMEOUT:
        return found
    last = _prove(capture, model, max(0.0, deadline - time.monotonic()), seed, params)
    return _closer(_closer(first, found), last)


def _closer(first: Decision, second: Decision) -> Decision:
    """The later decision, carrying the better partial placement of two that timed out."""
    if second.status != TIMEOUT:
        return second
    return replace(second, partial=better(first.partial, second.partial))


def _race(capture: Capture, deadline: float, members: list[Member], grace: float) -> Decision:
    """The members in forked processes, each keeping ``deadline`` (one still busy
    ``grace`` seconds past it is stopped): the first decisive answer, else the closer
    of their time-outs."""
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
    # Members keep the deadline themselves; one still busy past the grace is stopped.
    deadline += grace
    answer = Decision.undecided(0.0)
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


def _find(
    capture: Capture, model: SearchModel, time_limit: float, seed: int, params: SearchParams
) -> Decision:
    return find_placement(capture, time_limit, seed=seed, params=params, model=model)


def _prove(
    capture: Capture,
    model: SearchModel,
    time_limit: float,
    seed: int = 0,
    params: SearchParams = DEFAULT,
) -> Decision:
    """``_proofs``, with the nodes its exact searches visited."""
    budgets: list[Budget] = []
    decision = _proofs(capture, model, time_limit, seed, params, budgets)
    return replace(decision, nodes=sum(b.nodes for b in budgets))


def _proofs(
    capture: Capture,
    model: SearchModel,
    time_limit: float,
    seed: int,
    params: SearchParams,
    budgets: list[Budget],
) -> Decision:
    """The proofs in turn, each route of the registry with a runner (``first_proofs``:
    memory elements, the choice of stretches, the step relaxations, CP-SAT, a first look
    by the exact search when no block is pinned) when it is on; then, in turns, the exact search
    and a second annealing search (another seed, another start than the find member's; a
    placement ends the race as well as a proof). A proof's subset is shrunk in the time
    left: one found at the limit keeps the subset it came with, reported as not shown
    irreducible."""
    started = time.monotonic()
    this = Proving(capture, model, time_limit, started, started + time_limit, params, budgets)
    for route in first_proofs():
        if params.routes.on(route.name):
            decided: Decision | None = route.run()(this)
            if decided is not None:
                return decided
    return _anneal_and_exact(this, seed)


def _anneal_and_exact(p: Proving, seed: int) -> Decision:
    """The exact search with a node allowance (or, ``paced_turns``, seconds) that doubles,
    each turn followed by an annealing slice ``anneal_ratio`` times as long (``Restarts``,
    continued from turn to turn, from passes the find member's first round does not
    make): a small infeasible tile is proven in the first turns, a dense feasible one
    gives most of the time to annealing, and neither waits for the other's share."""
    tuned, routes, model = p.params.portfolio, p.params.routes, p.model
    prepared = Prepared.of(p.capture)
    features = Features.of(model, prepared)
    rng = random.Random(seed + tuned.anneal_seed)
    # Passes from order 1 on (the find member's first round makes pass 0), and restarts far
    # rarer than the find member's: some tiles need one long search.
    annealer = Restarts(
        lambda k: fresh_annealer(model, prepared, features, k + 1, rng, p.params.anneal, p.over),
        tuned.long_stall_unit,
    )
    exact, anneal = routes.on("exact"), routes.on("anneal-turns")
    nodes, seconds = tuned.exact_first_nodes, tuned.first_turn_seconds
    while (exact or anneal) and time.monotonic() < p.deadline:
        turn = time.monotonic()
        if exact:
            budget = (
                p.budget(min(seconds, p.deadline - turn))
                if tuned.paced_turns
                else p.budget(p.deadline - turn, nodes)
            )
            decided = p.exact(budget)
            if decided is not None:
                return decided
        now = time.monotonic()
        slice_length = max(tuned.anneal_floor, tuned.anneal_ratio * (now - turn))
        slice_end = min(p.deadline, now + slice_length)
        bases = annealer.run(slice_end if exact else p.deadline) if anneal else None
        if bases is not None:
            placed = model.placement(p.capture, bases)
            return Decision(SOLVED, placed, "anneal-turns", seconds=p.seconds())
        nodes, seconds = 2 * nodes, 2 * seconds
    return Decision.undecided(p.seconds(), p.closest(annealer.partial()))
