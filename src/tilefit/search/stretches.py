"""Route ``stretches``: the choice of stretch decomposed (combinatorial Benders).

Where memory is cut into stretches (``tilefit.search.proofs.choice``), a block
keeps one stretch all its life, and blocks in different stretches never share a
byte: once each block's stretch is chosen, every stretch is a tile of its own. So
the route splits the search as Côté, Dell'Amico and Iori (2014) split strip
packing:

- the **master** chooses a stretch for each block that has a choice: the choice
  relaxation's 0-1 program (at every step, the bytes alive in each stretch, and in
  its most shared parts, within their length), a greedy choice first, then HiGHS;
- each **slave** places one stretch with the blocks chosen for it, their bases
  confined to it (conflict edges to blocks of other stretches left out): first the
  exact search for a few nodes (a small stretch, or a refuted one, ends there), then
  the find member's routes on that stretch alone (greedy passes, completion, repair,
  annealing: a tile a fraction of the whole's size, which they sometimes place where
  the whole defeats them), then the exact search again for the rest of its share;
- a slave that proves its blocks cannot lie together gives a **cut**: the exact
  search's deletion filter shrinks them to a subset, and no later choice may put
  that whole subset in that stretch again.

Every slave placed: the placements together are one, once the conflict edges
between stretches hold (they are checked; the ladder's exit referees it again).
The master finding no choice is a proof: every placement makes a choice that
keeps the relaxation's rows, and each cut (a relaxation dropped the edges to other
stretches, so infeasible there is infeasible everywhere). A subset that cannot
lie in the one stretch its blocks can take is a proof at once, with that subset.
A slave that runs out of time leaves its choice forbidden too, to let the master
try another, but then the master's exhaustion proves nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from tilefit.model.capture import Capture, Range
from tilefit.model.deadline import Deadline
from tilefit.model.units import units_only
from tilefit.search.blocks import SearchModel, intersect
from tilefit.search.exact.route import proven
from tilefit.search.exact.solve import Budget, search_model
from tilefit.search.exact.subset import shrink
from tilefit.search.local.find import find_placement
from tilefit.search.outcome import Bases, Outcome
from tilefit.search.params import DEFAULT, SearchParams, Tuned, ruled
from tilefit.search.problem import Problem
from tilefit.search.proof import Proof
from tilefit.search.proofs.choice import (
    ChoiceParams,
    ChoiceProgram,
    Choices,
    greedy_choice,
    program,
    solve_program,
    stretches_of,
)
from tilefit.search.routes import INFEASIBLE, SOLVED, TIMEOUT, Status

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class StretchesParams(Tuned):
    """Route ``stretches``: the choice of stretch as master, each stretch placed or refuted
    alone as slave (``tilefit.search.stretches``; switched off as a route, ``Routes``)."""

    share: float = ruled(0.2, "share")
    """Of the prove member's time, what the route may take (every master and slave)."""
    first_nodes: int = ruled(2_000, "whole")
    """Nodes of the exact search's first look at a stretch, before the find member's
    routes (a small stretch, or one its blocks cannot share, is decided there)."""
    find: bool = ruled(True, "switch")
    """Each stretch then given to the find member's routes, on that stretch alone
    (off: the exact search only)."""
    find_share: float = ruled(0.15, "share")
    """Of the route's time, what the find member's routes may take on one stretch."""
    slave_share: float = ruled(0.25, "share")
    """Of the route's time, what one stretch may take (the exact search's first look, the
    find member's routes, then the exact search for the rest)."""
    shrink_share: float = ruled(0.1, "share")
    """Of the route's time, what shrinking the blocks of one failed stretch to a cut may
    take (past it the cut keeps the blocks it has: weaker, still sound)."""
    rounds: int = ruled(200, "whole")
    """Choices the master may make before the route gives up."""


Cut = frozenset[tuple[int, int]]  # (block, stretch) choices never all taken together


@dataclass(frozen=True)
class Decomposed:
    """What the decomposition showed: SOLVED with every block's base, INFEASIBLE with the
    blocks of a subset (None: the whole model), or TIMEOUT; with its rounds and cuts."""

    status: Status
    bases: dict[int, int] | None = None
    core: frozenset[int] | None = None
    rounds: int = 0
    cuts: int = 0
    nodes: int = 0  # the slaves' exact searches


@dataclass
class _Slaves:
    """The stretches' searches, each set of blocks searched once per stretch."""

    capture: Capture | None  # the model's, for the find member's routes (None: exact only)
    model: SearchModel
    choices: Choices
    deadline: Deadline
    params: SearchParams
    known: dict[tuple[int, frozenset[int]], Bases] = field(default_factory=dict)
    budgets: list[Budget] = field(default_factory=list)

    def budget(self, until: Deadline, nodes: int | None) -> Budget:
        """A budget for one exact search, its nodes counted among the route's."""
        self.budgets.append(Budget(until, nodes, self.params))
        return self.budgets[-1]

    def nodes(self) -> int:
        return sum(b.nodes for b in self.budgets)

    def search(self, s: int, blocks: frozenset[int]) -> Bases:
        """Stretch ``s`` holding ``blocks``: placed, refuted, or neither in time."""
        key = (s, blocks)
        if key not in self.known:
            self.known[key] = self._search(s, blocks)
        return self.known[key]

    def _search(self, s: int, blocks: frozenset[int]) -> Bases:
        order = sorted(blocks)
        tuned = self.params.of(StretchesParams)
        sub = confined(self.model, self.choices.stretches[s], order)
        until = self.deadline.share(tuned.slave_share)
        # A look of a few nodes first: small stretches, and refuted ones, end there.
        outcome = search_model(sub, self.budget(until, tuned.first_nodes))
        if outcome.status == TIMEOUT and tuned.find and self.capture is not None:
            found = self._find(s, order)
            if found is not None:
                return Bases(SOLVED, bases=found)
            outcome = search_model(sub, self.budget(until, None))
        if outcome.status == SOLVED and outcome.bases is not None:
            return Bases(SOLVED, bases={order[i]: b for i, b in outcome.bases.items()})
        if outcome.status != INFEASIBLE:
            return Bases(TIMEOUT)
        trial = self.params.portfolio.subset_trial_nodes
        ids, _ = shrink(sub, self.deadline.share(tuned.shrink_share), trial, self.params)
        index = {self.model.blocks[k].id: k for k in order}
        return Bases(INFEASIBLE, subset=frozenset(index[i] for i in ids))

    def _find(self, s: int, order: list[int]) -> dict[int, int] | None:
        """The blocks' bases as the find member's routes place them in stretch ``s``
        alone, within their share, or None."""
        assert self.capture is not None
        ids = [self.model.blocks[k].id for k in order]
        sub = stretch_capture(self.capture, ids, self.choices.stretches[s])
        until = self.deadline.share(self.params.of(StretchesParams).find_share)
        found = find_placement(Problem(sub), until, params=self.params)
        if found.status != SOLVED or found.placement is None:
            return None
        bases = self.model.bases_of(found.placement.offsets)
        return {k: bases[k] for k in order}


def confined(model: SearchModel, stretch: tuple[int, int], blocks: list[int]) -> SearchModel:
    """``model`` with only ``blocks`` (ascending), each confined to ``stretch``: its bases
    there, the conflict edges among them alone."""
    start, end = stretch
    changed = list(model.blocks)
    for k in blocks:
        block = changed[k]
        changed[k] = replace(block, bases=intersect(block.bases, ((start, end - block.size),)))
    return replace(model, blocks=tuple(changed)).restricted(frozenset(blocks))


def stretch_capture(capture: Capture, ids: list[str], stretch: tuple[int, int]) -> Capture:
    """The units ``ids`` of ``capture`` alone, its memory's ranges cut to ``stretch``: a
    stretch as a tile of its own (the conflicts among the units kept)."""
    start, end = stretch
    sub = units_only(capture, ids)
    ranges = tuple(
        Range(max(r.start, start), min(r.end, end), r.name, r.classes)
        for r in sub.memory.ranges
        if max(r.start, start) < min(r.end, end)
    )
    return replace(sub, memory=replace(sub.memory, ranges=ranges))


def decompose(
    model: SearchModel,
    deadline: Deadline,
    params: SearchParams = DEFAULT,
    capture: Capture | None = None,
) -> Decomposed:
    """The decomposition of ``model`` until ``deadline``, each slave given its shares of it
    (``StretchesParams``) and the nodes of their exact searches counted; with ``capture``
    (the model's) the slaves also try the find member's routes after the exact search's
    first look. TIMEOUT at once where memory is one stretch."""
    choices = stretches_of(model, params.of(ChoiceParams))
    if choices is None:  # one stretch: nothing to decompose
        return Decomposed(TIMEOUT)
    homeless = frozenset(k for k, hulls in enumerate(choices.hulls) if not hulls)
    if homeless:  # a block with no base at all: alone, no placement
        return Decomposed(INFEASIBLE, core=homeless)
    every = list(range(len(model.blocks)))
    built = program(choices, every, list(range(len(choices.steps))), params.of(ChoiceParams))
    if built is None:  # the blocks without a choice overfill a stretch already
        return Decomposed(INFEASIBLE)
    # Each slave's share is of the route's time from here: its deadline starts now.
    slaves = _Slaves(capture, model, choices, Deadline.start(deadline.left()), params)
    found = _master(slaves, built, params)
    return replace(found, nodes=slaves.nodes())


def _master(slaves: _Slaves, built: ChoiceProgram, params: SearchParams) -> Decomposed:
    """The master's choices, each given to the slaves, until they settle one or the
    master has no choice left."""
    choices, deadline = slaves.choices, slaves.deadline
    fixed = {k: next(iter(h)) for k, h in enumerate(choices.hulls) if len(h) == 1}
    cuts: list[Cut] = []
    sound = True  # every cut so far proven: the master's exhaustion is a proof
    for rounds in range(1, params.of(StretchesParams).rounds + 1):
        chosen = greedy_choice(built) if not cuts else None
        if chosen is None:
            found = solve_program(built, deadline, params.of(ChoiceParams), cuts)
            if found is None or (found is False and not sound):
                return Decomposed(TIMEOUT, rounds=rounds, cuts=len(cuts))
            if found is False:
                return Decomposed(INFEASIBLE, rounds=rounds, cuts=len(cuts))
            chosen = {} if found is True else found
        where = {**fixed, **chosen}
        outcome = _round(slaves, where, fixed, cuts)
        if isinstance(outcome, Decomposed):
            return replace(outcome, rounds=rounds, cuts=len(cuts))
        sound = sound and outcome
        if deadline.passed():
            break
    return Decomposed(TIMEOUT, rounds=params.of(StretchesParams).rounds, cuts=len(cuts))


def _round(
    slaves: _Slaves, where: Mapping[int, int], fixed: Mapping[int, int], cuts: list[Cut]
) -> Decomposed | bool:
    """The slaves of one choice (block -> stretch): the decomposition's answer when they
    settle it, else whether the cuts they added to ``cuts`` are all proven."""
    members: dict[int, set[int]] = {}
    for k, s in where.items():
        members.setdefault(s, set()).add(k)
    bases: dict[int, int] = {}
    sound, failed = True, False
    for s in sorted(members):
        answer = slaves.search(s, frozenset(members[s]))
        if answer.bases is not None:
            bases.update(answer.bases)
            continue
        failed = True
        blocks = members[s] if answer.subset is None else answer.subset
        cut = frozenset((k, s) for k in blocks if k not in fixed)
        if not cut:  # the blocks have no other stretch: a proof, or no way on
            if answer.subset is None:
                return Decomposed(TIMEOUT)
            return Decomposed(INFEASIBLE, core=answer.subset)
        sound = sound and answer.status == INFEASIBLE
        if cut not in cuts:
            cuts.append(cut)
        if slaves.deadline.passed():
            return Decomposed(TIMEOUT)
    if failed:
        return sound
    if edges_hold(slaves.model, bases):
        return Decomposed(SOLVED, bases=bases)
    whole = frozenset((k, s) for k, s in where.items() if k not in fixed)
    if not whole:
        return Decomposed(TIMEOUT)
    cuts.append(whole)  # this choice's placements clash by an edge: try another, unproven
    return False


def edges_hold(model: SearchModel, bases: Mapping[int, int]) -> bool:
    """Whether every conflict edge's two sides, their blocks at ``bases``, touch no
    memory element in common."""
    for edge in model.edges:
        a = model.side_elements(edge.a, bases[edge.a.block])
        b = model.side_elements(edge.b, bases[edge.b.block])
        if a[0] <= b[1] and b[0] <= a[1]:
            return False
    return True


class Stretches(Proof):
    """The decomposition over stretches, in the prove member: a placement, a proof, or
    nothing in its share of the member's time."""

    name = "stretches"
    rank = 40
    tuning = StretchesParams
    proves, places = True, True
    says = (
        "with each request's stretch of memory chosen, every stretch was placed on its "
        "own, or no choice was left that the stretches' exact searches had not refuted"
    )

    def run(self, problem: Problem, deadline: Deadline, params: SearchParams) -> Outcome | None:
        model = problem.model
        found = decompose(
            model, deadline.share(params.of(StretchesParams).share), params, problem.capture
        )
        if found.status == SOLVED and found.bases is not None:
            placement = model.placement(problem.capture, found.bases)
            decided = Outcome(
                status=SOLVED, placement=placement, route=self.name, seconds=deadline.spent()
            )
        elif found.status == INFEASIBLE:
            core = model if found.core is None else model.restricted(found.core)
            decided = proven(problem, core, Stretches, deadline, params)
        else:
            decided = Outcome.undecided(deadline.spent())
        return decided.spending(found.nodes)
