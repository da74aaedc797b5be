"""Decide a capture with every route at once: the first decisive answer wins.

The portfolio is itself a search (``tilefit.search.proof.Search``) over its two members,
which are searches over their routes (XLA's ``HeapAlgorithm``). They share the deadline:

- **find** (``tilefit.search.local.find``): fast placements, never a proof;
- **prove**: every registered ``Proof`` in rank order, each when it is switched on
  (the memory elements, the choice of stretches, the step relaxations, with no pinned
  block the exact search's first look, the decomposition over stretches, OR-Tools
  CP-SAT from the closest placement: ``tilefit.search.proofs``,
  ``tilefit.search.exact.route``, ``tilefit.search.stretches``, ``tilefit.search.sat``);
  then, in turns, the full exact search and a second annealing search
  (``AnnealTurns``).

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
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection, wait

from tilefit.engine.attempt import Prepared
from tilefit.model.deadline import Deadline
from tilefit.search.compiling import ensure_compiled, fork_is_safe
from tilefit.search.exact.route import Exact, turn
from tilefit.search.exact.solve import Budget
from tilefit.search.local.anneal import Restarts
from tilefit.search.local.contention import Features
from tilefit.search.local.find import find_placement, fresh_annealer
from tilefit.search.outcome import Outcome, Partial, better
from tilefit.search.params import DEFAULT, SearchParams
from tilefit.search.problem import Problem
from tilefit.search.proof import Proof, Search
from tilefit.search.routes import PROVE, SOLVED, TIMEOUT, Route, Routes, of_member


class AnnealTurns(Route, Search):
    """The prove member's annealing between its turns of the exact search (another seed,
    another start than the find member's): a placement ends the race as well as a proof.
    Not a ``Proof``: the member runs it in its turns, after its proofs. Run alone
    (``run``), it is those turns with no exact search."""

    name = "anneal-turns"
    member = PROVE
    rank = 70
    proves, places = False, True
    says = "annealing between the exact search's turns"

    def run(self, problem: Problem, deadline: Deadline, params: SearchParams) -> Outcome:
        alone = replace(params, routes=Routes.only([self.name]))
        return _anneal_and_exact(problem, Deadline.start(deadline.left()), alone, 0, None)


def proofs() -> tuple[type[Proof], ...]:
    """The prove member's routes it runs before its turns, in rank order."""
    return tuple(r for r in of_member(PROVE) if issubclass(r, Proof))


proofs()  # every route imported with this module, before any clock starts, so that a
# forked member does not import them (scipy: 0.5 s) on its own time


@dataclass(frozen=True)
class Find(Search):
    """The find member: placements, never a proof (``tilefit.search.local.find``)."""

    seed: int = 0

    def run(self, problem: Problem, deadline: Deadline, params: SearchParams) -> Outcome:
        return find_placement(problem, deadline, seed=self.seed, params=params)


@dataclass(frozen=True)
class Prove(Search):
    """The prove member: its proofs in rank order, each when it is on; then, in turns, the
    exact search and a second annealing search. A proof's subset is shrunk in the time
    left: one found at the limit keeps the subset it came with, reported as not shown
    irreducible. The nodes of its exact searches, and the best partial placement a route
    kept, come with its answer."""

    seed: int = 0

    def run(self, problem: Problem, deadline: Deadline, params: SearchParams) -> Outcome:
        # The member's own deadline: its routes' shares are of its time, from its start.
        mine = Deadline.start(deadline.left())
        nodes, partial = 0, None
        for kind in proofs():
            if params.routes.on(kind):
                found = kind().decide(problem, mine, params)
                if found is None:
                    continue
                nodes += found.nodes
                if found.status != TIMEOUT:
                    return replace(found, nodes=nodes)
                partial = better(partial, found.partial)
        last = _anneal_and_exact(problem, mine, params, self.seed, partial)
        return last.spending(nodes)


@dataclass(frozen=True)
class Portfolio(Search):
    """Both members at once, in forked processes where that is safe and two or more
    workers are asked for (else in turns in this process): the first decisive answer."""

    workers: int | None = None
    seed: int = 0

    def run(self, problem: Problem, deadline: Deadline, params: SearchParams) -> Outcome:
        started = time.monotonic()
        # Here once, not in every member; a compilation is given back, loading a cache is not.
        compiled = ensure_compiled()
        deadline = deadline.give_back(compiled)
        problem.model  # noqa: B018 (built once: the members, forked or not, share it)
        members: list[Search] = [Find(self.seed), Prove(self.seed)]
        if _parallel(self.workers):
            decision = _race(problem, deadline, members, params)
        else:
            decision = _turns(problem, deadline, params, self.seed)
        return replace(decision, seconds=time.monotonic() - started - compiled)


def decide(
    problem: Problem,
    deadline: Deadline,
    *,
    workers: int | None = None,
    seed: int = 0,
    params: SearchParams = DEFAULT,
) -> Outcome:
    """Run the find and prove members by ``deadline``; the first decisive wins.

    ``params`` switches routes and prunings off and tunes every part (``SearchParams``).
    The deadline bounds the whole call, down to stopping the members' processes (within
    ``params.portfolio.grace``), except the one-time compilation of the kernels
    (``tilefit.search.compiling``), which is given back.
    """
    return Portfolio(workers, seed).run(problem, deadline, params)


def _parallel(workers: int | None) -> bool:
    count = workers if workers is not None else min(2, os.cpu_count() or 1)
    return count >= 2 and fork_is_safe()


def _turns(problem: Problem, deadline: Deadline, params: SearchParams, seed: int) -> Outcome:
    """One process: a short proof attempt, then the find member, then the full proof."""
    shares = params.portfolio
    first = Prove(seed).run(
        problem, Deadline.start(deadline.left() * shares.turns_proof_share), params
    )
    if first.status != TIMEOUT:
        return first
    found = Find(seed).run(
        problem, Deadline.start(deadline.left() * shares.turns_find_share), params
    )
    if found.status != TIMEOUT:
        return found
    last = Prove(seed).run(problem, deadline, params)
    return _closer(_closer(first, found), last)


def _closer(first: Outcome, second: Outcome) -> Outcome:
    """The later decision, carrying the better partial placement of two that timed out."""
    if second.status != TIMEOUT:
        return second
    return replace(second, partial=better(first.partial, second.partial))


def _race(
    problem: Problem, deadline: Deadline, members: list[Search], params: SearchParams
) -> Outcome:
    """The members in forked processes, each keeping ``deadline`` (one still busy
    ``grace`` seconds past it is stopped): the first decisive answer, else the closer
    of their time-outs."""
    context = multiprocessing.get_context("fork")
    pipes: list[Connection] = []
    processes = []
    for member in members:
        theirs, ours = context.Pipe(duplex=False)
        process = context.Process(target=_serve, args=(member, problem, deadline, params, ours))
        process.start()
        ours.close()
        pipes.append(theirs)
        processes.append(process)
    # Members keep the deadline themselves; one still busy past the grace is stopped.
    end = deadline.at + params.portfolio.grace
    answer = Outcome.undecided(0.0)
    try:
        waiting = list(pipes)
        while waiting:
            ready = wait(waiting, timeout=max(0.0, end - time.monotonic()))
            if not ready:
                break
            for pipe in [p for p in waiting if p in ready]:
                waiting.remove(pipe)
                try:
                    decision: Outcome | Exception = pipe.recv()
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


def _serve(
    member: Search, problem: Problem, deadline: Deadline, params: SearchParams, pipe: Connection
) -> None:
    # Ctrl-C reaches the whole process group: the parent answers it and stops the members.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        # The deadline, not a duration: the time the fork took is the limit's too.
        pipe.send(member.run(problem, deadline, params))
    except Exception as error:  # sent to the parent, which raises it
        pipe.send(error)
    finally:
        pipe.close()


def _anneal_and_exact(
    problem: Problem, deadline: Deadline, params: SearchParams, seed: int, partial: Partial | None
) -> Outcome:
    """The exact search with a node allowance (or, ``paced_turns``, seconds) that doubles,
    each turn followed by an annealing slice ``anneal_ratio`` times as long (``Restarts``,
    continued from turn to turn, from passes the find member's first round does not
    make): a small infeasible tile is proven in the first turns, a dense feasible one
    gives most of the time to annealing, and neither waits for the other's share.
    Undecided, the better of ``partial`` (the routes') and the annealing's."""
    tuned, routes, model = params.portfolio, params.routes, problem.model
    prepared = Prepared.of(problem.capture)  # the engine's own units, as the find member's
    features = Features.of(model, prepared)
    rng = random.Random(seed + tuned.anneal_seed)
    # Passes from order 1 on (the find member's first round makes pass 0), and restarts far
    # rarer than the find member's: some tiles need one long search.
    annealer = Restarts(
        lambda k: fresh_annealer(
            model, prepared, features, k + 1, rng, params.anneal, deadline.passed
        ),
        tuned.long_stall_unit,
    )
    exact, anneal = routes.on(Exact), routes.on(AnnealTurns)
    nodes, seconds, spent = tuned.exact_first_nodes, tuned.first_turn_seconds, 0
    while (exact or anneal) and not deadline.passed():
        began = time.monotonic()
        if exact:
            budget = (
                Budget(deadline.until(began + seconds), None, params)
                if tuned.paced_turns
                else Budget(deadline, nodes, params)
            )
            decided = turn(problem, deadline, budget, params)
            spent += decided.nodes
            if decided.status != TIMEOUT:
                return replace(decided, nodes=spent)
        now = time.monotonic()
        slice_length = max(tuned.anneal_floor, tuned.anneal_ratio * (now - began))
        slice_end = deadline.until(now + slice_length)
        bases = annealer.run(slice_end if exact else deadline) if anneal else None
        if bases is not None:
            placed = model.placement(problem.capture, bases)
            return Outcome(
                status=SOLVED,
                placement=placed,
                route=AnnealTurns.name,
                seconds=deadline.spent(),
                nodes=spent,
            )
        nodes, seconds = 2 * nodes, 2 * seconds
    return Outcome.undecided(deadline.spent(), better(annealer.partial(), partial), spent)
