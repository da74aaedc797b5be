"""Ruin and recreate, compiled, with simulated annealing: routes ``anneal``, ``anneal-turns``.

The state is a valid partial placement (see ``tilefit.search.local.ruin``); its cost
is the area (bytes x steps) of the blocks left out. Each iteration takes a
block left out, u, and a base for it: the one displacing the least placed
area, or one drawn at random. Then it either *evicts* (u goes there, what it
collides with is taken out) or frees a *band* (the placed blocks living with
u within a few of u's sizes of that base are taken out, and u joins them).
The blocks taken out, with u and a few others left out, are placed again in a
drawn order (by area, area over room, or at random) with a drawn fit (lowest,
the tightest run from below or from above, or a random run's end). Blocks
that find no room stay out.

The result is kept when the cost does not grow, else with the annealing
probability exp(-growth / T); T falls linearly from ``AnnealParams.temperature``
mean block areas to 0 over ``period`` iterations, then the search starts again, hot,
from the best state seen. Every choice is drawn from the seed, so the answer
depends only on the seed and on how many iterations ran (the deadline only
decides that). ``Restarts`` begins a stalled search again from a fresh start.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from tilefit.model.deadline import Deadline
from tilefit.search.blocks import SearchModel
from tilefit.search.kernel.arrays import Array
from tilefit.search.local.anneal_loop import iterate, settle
from tilefit.search.local.meets import Pairs, pair_tables
from tilefit.search.local.partial import partial_of
from tilefit.search.outcome import Partial, better
from tilefit.search.params import DEFAULT, AnnealParams


class Buffers(NamedTuple):
    """Scratch arrays of the compiled loop, sized once per model."""

    lo: Array  # forbidden intervals, then free runs (free_runs)
    hi: Array
    runs_lo: Array
    runs_hi: Array
    pos: Array  # cost breakpoints (cheapest_base)
    slope: Array
    jump: Array
    cand: Array
    mark: Array  # per block: the stamp of the last search that found it
    out: Array  # blocks taken out
    queue: Array  # blocks to place again
    keys: NDArray[np.float64]
    log: Array  # (block, old base, old placed) per change, to undo a rejected iteration


class Annealer:
    """One annealing search of a model, resumable: ``run`` continues where it stopped."""

    def __init__(
        self,
        model: SearchModel,
        start: dict[int, int],
        seed: int,
        params: AnnealParams = DEFAULT.anneal,
    ) -> None:
        self.model = model
        self.chunk = params.chunk
        self.pairs = pair_tables(model, params.pair_limit)
        n = max(len(model.blocks), 1)
        self.y = np.zeros(n, dtype=np.int64)
        self.placed = np.zeros(n, dtype=np.bool_)
        self.best_y = self.y.copy()
        self.best_placed = self.placed.copy()
        # cost now, best cost, iterations run, last stamp, last gain (see anneal_loop)
        self.counters = np.zeros(5, dtype=np.int64)
        self.rng = np.array([seed % (2**31 - 2) + 1], dtype=np.int64)
        self.temperature = 0.0
        self.period = params.period
        self.pace = 0.0  # seconds one iteration took in the last full chunk (0: not known)
        # The compiled loop's knobs, in anneal_loop's order (EVICT .. WHOLE).
        knobs = (params.evict_share, params.cheapest_share, params.others, params.reach)
        self.knobs = np.array([*knobs, params.whole_share], dtype=np.float64)
        p = self.pairs
        if p is None:
            return
        self.buffers = _buffers(p, n)
        at = np.full(n, -1, dtype=np.int64)
        for k, base in start.items():
            at[k] = base
        settle(p, self.y, self.placed, at, self.buffers, self.counters)
        self.best_y[:] = self.y
        self.best_placed[:] = self.placed
        self.temperature = params.temperature * float(np.mean(p.area)) if len(model.blocks) else 0.0

    @property
    def left_out(self) -> int:
        """The area of the blocks the best state leaves out (-1: the route does not run)."""
        return int(self.counters[1]) if self.pairs is not None else -1

    def partial(self) -> Partial | None:
        """The best state as a partial placement (None: the route does not run)."""
        if self.pairs is None:
            return None
        bases = {int(k): int(self.best_y[k]) for k in np.flatnonzero(self.best_placed)}
        return partial_of(self.model, bases, self.left_out)

    def _until(self, deadline: Deadline) -> int:
        """Iterations that fit before the deadline at the last chunk's pace (at least one):
        a whole chunk far from it, fewer near it, so that a run keeps its deadline."""
        remaining = deadline.at - time.monotonic()
        if self.pace <= 0.0 or remaining >= self.chunk * self.pace:
            return self.chunk
        return max(1, int(remaining / self.pace))

    @property
    def stalled(self) -> int:
        """Iterations run since the best state last improved."""
        return int(self.counters[2] - self.counters[4])

    def run(
        self,
        iterations: int,
        deadline: Deadline,
        stop: Callable[[], bool] | None = None,
        stall: int | None = None,
    ) -> dict[int, int] | None:
        """Bases of every block once all are placed; None after ``iterations``, at the
        deadline, or once ``stall`` iterations have passed without a better state."""
        p = self.pairs
        if p is None:
            return None
        left = iterations
        while left > 0 and self.counters[1] > 0:
            if deadline.passed() or (stop is not None and stop()):
                break
            if stall is not None and self.stalled >= stall:
                break
            step = min(self.chunk, left, self._until(deadline))
            chunk_started = time.monotonic()
            iterate(
                p,
                self.y,
                self.placed,
                self.best_y,
                self.best_placed,
                self.counters,
                self.rng,
                self.buffers,
                self.temperature,
                self.period,
                self.knobs,
                step,
            )
            if step == self.chunk:
                self.pace = (time.monotonic() - chunk_started) / step
            left -= step
        if self.counters[1] > 0:
            return None
        return {k: int(self.best_y[k]) for k in range(len(self.model.blocks))}


def _buffers(p: Pairs, n: int) -> Buffers:
    """The compiled loop's scratch arrays for ``n`` blocks, sized by the longest rows of
    the pair tables."""
    row = int(np.max(np.diff(p.ptr), initial=0)) + int(np.max(np.diff(p.cptr), initial=0))
    room = row + int(np.max(np.diff(p.dptr), initial=0)) + 2

    def ints(k: int) -> Array:
        return np.zeros(k, dtype=np.int64)

    return Buffers(
        lo=ints(room),
        hi=ints(room),
        runs_lo=ints(room),
        runs_hi=ints(room),
        pos=ints(4 * row + 2),
        slope=ints(4 * row + 2),
        jump=ints(4 * row + 2),
        cand=ints(8 * row + 2 * room),
        mark=ints(n),
        out=ints(n),
        queue=ints(n),
        keys=np.zeros(n, dtype=np.float64),
        log=ints(3 * (2 * n + 4)),
    )


class Restarts:
    """Annealing searches begun again from a fresh start whenever one stalls.

    From some starts (a greedy pass and a seed) the search is stuck a block or two
    short for good; from others it ends in a few hundred iterations. So a search
    that has gone ``unit`` times Luby's sequence (1, 1, 2, 1, 1, 2, 4, ...)
    iterations without a better state is dropped for a new one, ``begin(k)``
    making the k-th: many short searches, and now and then a long one for the
    tiles that need it. A search that keeps improving is never dropped, and with
    ``unit=None`` none is: one long search.
    """

    def __init__(self, begin: Callable[[int], Annealer], unit: int | None) -> None:
        self.begin = begin
        self.unit = unit
        self.starts = 0
        self.current = begin(0)
        self.dropped: Partial | None = None  # the best state of the searches dropped

    @classmethod
    def one(cls, annealer: Annealer) -> Restarts:
        """A single search, never begun again."""
        return cls(lambda k: annealer, unit=None)

    def run(
        self, deadline: Deadline, stop: Callable[[], bool] | None = None
    ) -> dict[int, int] | None:
        """Bases of every block once a search places all; None at the deadline or stop."""
        while True:
            stall = None if self.unit is None else self.unit * luby(self.starts + 1)
            bases = self.current.run(1 << 62, deadline, stop, stall)
            if bases is not None or self.current.pairs is None or stall is None:
                return bases
            if self.current.stalled < stall:  # the deadline or the stop, not a stall
                return None
            if self.dropped is None or self.current.left_out < self.dropped.left_out:
                self.dropped = self.current.partial()
            self.starts += 1
            self.current = self.begin(self.starts)

    def partial(self) -> Partial | None:
        """The best state of every search begun, as a partial placement."""
        return better(self.dropped, self.current.partial())


def luby(i: int) -> int:
    """The i-th term (from 1) of Luby's sequence: 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, ..."""
    while True:
        k = 1
        while (1 << k) - 1 < i:
            k += 1
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1
