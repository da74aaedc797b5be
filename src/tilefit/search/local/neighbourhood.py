"""Large neighbourhood search with the exact kernel: route ``lns``.

On a dense tile the annealing's best state places every block but a few, and
then stalls: each left-out block needs room that only a rearrangement of many
blocks at once would make, which no single move of the annealing makes. Each
step here takes one left-out block u and a *neighbourhood*: the placed blocks
alive beside u nearest the base where u would displace least (the same measure
as the annealing's cheapest base). Every other placed block stays where it is;
the exact kernel searches the neighbourhood and u around them, as completion
searches around the blocks it keeps (``tilefit.search.local.restriction``), so
every answer is valid. Found: one block fewer left out, and with none left, a
placement. Not found within the step's nodes: the neighbourhood grows (up to
``MOST``), and the next step tries another block or another base.

Blocks whose members have their own lifetimes are never freed (the restriction
would make them rigid over their hull, which rarely fits back where they were):
they stay fixed unless left out. The other left-out blocks are not in the
problem a step solves, so a step asks only for u.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from tilefit.search.blocks import Block, Model
from tilefit.search.exact.solve import Budget, search_free
from tilefit.search.local.partial import Partial, partial_of, valid_from
from tilefit.search.local.restriction import rigid_restriction
from tilefit.search.routes import SOLVED

FIRST = 12
"""Placed blocks freed around u in a first step; the size grows by half after a failure."""

MOST = 48
"""Placed blocks freed at most in one step."""

NODES = 4_000
"""The exact kernel's node allowance in one step, times the neighbourhood's size over FIRST."""

STEP_SECONDS = 0.5
"""Seconds one step may take at most (the kernel's node allowance usually ends it first)."""

CHEAPEST = 3
"""The step's base for u is drawn among this many of the cheapest weighed."""

CANDIDATES = 64
"""Bases of u weighed in one step, at most (drawn among the tops of the blocks alive beside
it and the lowest base of each valid interval)."""


@dataclass
class State:
    """A valid partial placement: the bases of the blocks placed."""

    at: dict[int, int]

    def left_out(self, model: Model) -> list[int]:
        return [k for k in range(len(model.blocks)) if k not in self.at]

    def area(self, model: Model) -> int:
        """The area (bytes x steps) of the blocks left out: the annealing's cost."""
        return sum(model.blocks[k].area for k in self.left_out(model))

    def partial(self, model: Model) -> Partial:
        return partial_of(model, self.at, self.area(model))


def kernel_engine(
    model: Model, free: Sequence[int], fixed: Mapping[int, int], budget: Budget
) -> dict[int, int] | None:
    """The exact kernel, on the rigid restriction around the fixed blocks (as completion)."""
    outcome = search_free(rigid_restriction(model, fixed), free, dict(fixed), budget)
    return outcome.bases if outcome.status == SOLVED else None


@dataclass(frozen=True)
class Engine:
    """How a step re-places its neighbourhood: ``replace(model, free, fixed, budget)``
    gives bases for the free blocks around the fixed ones (kept) within the budget (its
    deadline, and its nodes for the kernel), or None."""

    name: str
    replace: Callable[[Model, Sequence[int], Mapping[int, int], Budget], dict[int, int] | None]
    pieces: bool  # it takes blocks whose members keep their own lifetimes as they are


KERNEL = Engine("kernel", kernel_engine, pieces=False)
"""The engine of route ``lns``. ``tilefit.peers.cpsat.cpsat_blocks`` is a second one,
measured against it by ``benchmarks/routes.py --lns-engine cpsat``."""


class Neighbourhoods:
    """Steps of large neighbourhood search on one model, resumable from a better state."""

    def __init__(
        self,
        model: Model,
        rng: random.Random,
        engine: Engine = KERNEL,
        stretch_waste: bool | None = None,
    ) -> None:
        self.model = model
        self.engine = engine
        self.stretch_waste = stretch_waste  # the kernel's stretch bound (None: its default)
        self.rng = rng
        self.state: State | None = None
        self.size = FIRST
        self.steps = 0
        self.found = 0  # steps that placed their block
        # Per block: the blocks whose lifetimes meet its own, and whether it may be freed.
        self.meets = _meets(model.blocks)
        self.freeable = [b.rigid or engine.pieces for b in model.blocks]

    def offer(self, at: Mapping[int, int], area: int) -> None:
        """A valid partial placement found elsewhere (the annealing's best state): taken
        when it leaves out less than the state held."""
        if self.state is None or area < self.state.area(self.model):
            self.state = State(dict(at))
            self.size = FIRST

    def partial(self) -> Partial | None:
        return None if self.state is None else self.state.partial(self.model)

    def step(self, deadline: float) -> dict[int, int] | None:
        """One step; the bases of every block once none is left out, else None."""
        state = self.state
        if state is None:
            return None
        left = state.left_out(self.model)
        if not left:
            return dict(state.at)
        self.steps += 1
        u = self.rng.choice(left)
        freed = self.neighbourhood(state.at, u, self.size)
        bases = self._replace(state.at, u, freed, deadline)
        if bases is None:
            self.size = min(MOST, self.size + max(1, self.size // 2))
            return None
        self.found += 1
        state.at = bases
        self.size = FIRST
        return dict(bases) if len(bases) == len(self.model.blocks) else None

    def neighbourhood(self, at: Mapping[int, int], u: int, size: int) -> list[int]:
        """Up to ``size`` freeable placed blocks alive beside u, nearest (in address) the
        base of u that displaces the least placed area."""
        blocks = self.model.blocks
        beside = [j for j in self.meets[u] if j in at and self.freeable[j]]
        centre = self.cheapest(at, u)
        lo, hi = centre, centre + blocks[u].size

        def distance(j: int) -> int:
            a, b = at[j], at[j] + blocks[j].size
            return 0 if a < hi and lo < b else min(abs(a - hi), abs(lo - b))

        u0, u1 = blocks[u].start, blocks[u].end

        def outside(j: int) -> int:  # steps a block lives outside u's lifetime
            return max(0, u0 - blocks[j].start) + max(0, blocks[j].end - u1)

        beside.sort(key=lambda j: (distance(j) * (1 + outside(j)), j))
        return beside[:size]

    def cheapest(self, at: Mapping[int, int], u: int) -> int:
        """A valid base of u, among some drawn, where the placed blocks alive beside it
        that it would overlap have the least area (ties: the lowest base)."""
        block = self.model.blocks[u]
        options = [lo for lo, _ in block.bases]
        options += [at[j] + self.model.blocks[j].size for j in self.meets[u] if j in at]
        if len(options) > CANDIDATES:
            options = self.rng.sample(options, CANDIDATES)
        ranked: list[tuple[int, int]] = []
        for x in options:
            base = valid_from(block, x)
            if base is None:
                continue
            cost = sum(
                self.model.blocks[j].area
                for j in self.meets[u]
                if j in at
                and at[j] < base + block.size
                and base < at[j] + self.model.blocks[j].size
            )
            ranked.append((cost, base))
        ranked.sort()
        # One of the few cheapest, drawn: a step that failed at one base may not at another.
        return ranked[self.rng.randrange(min(CHEAPEST, len(ranked)))][1] if ranked else 0

    def _replace(
        self, at: Mapping[int, int], u: int, freed: list[int], deadline: float
    ) -> dict[int, int] | None:
        """The blocks placed in ``at`` and u, with ``freed`` and u searched around the
        others (kept where they are) by the engine: their bases, or None."""
        keep = frozenset(at) | {u}
        sub = self.model.restricted(keep)
        order = sorted(keep)  # sub's block k is the model's order[k]
        index = {old: k for k, old in enumerate(order)}
        loose = {index[j] for j in freed} | {index[u]}
        fixed = {index[j]: b for j, b in at.items() if index[j] not in loose}
        nodes = NODES * max(1, len(freed) // FIRST)
        seconds = max(0.0, min(deadline - time.monotonic(), STEP_SECONDS))
        budget = Budget(seconds, nodes, self.stretch_waste)
        bases = self.engine.replace(sub, sorted(loose), fixed, budget)
        return None if bases is None else {order[k]: b for k, b in bases.items()}


def _meets(blocks: tuple[Block, ...]) -> list[list[int]]:
    """Per block, the other blocks alive at some common step (by hull)."""
    order = sorted(range(len(blocks)), key=lambda k: blocks[k].start)
    out: list[list[int]] = [[] for _ in blocks]
    active: list[int] = []
    for k in order:
        start = blocks[k].start
        active = [j for j in active if blocks[j].end > start]
        for j in active:
            out[j].append(k)
            out[k].append(j)
        active.append(k)
    return out
