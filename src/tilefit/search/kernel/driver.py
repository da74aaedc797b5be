"""One ordering's search over a free problem: the kernel's state, resumable by node budget.

The state is sized by what the search needs, not by its worst case: the trail
and the candidate lists start short and double when the kernel reports GROW
(it stops before a step that might not fit, so it resumes exactly where it
was). Everything else is linear in the blocks and sections.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np

from tilefit.model.errors import by_interrupt
from tilefit.search.kernel import branch, layout
from tilefit.search.kernel.arrays import Array, FreeProblem
from tilefit.search.kernel.jit import COMPILED
from tilefit.search.kernel.layout import State, Trail
from tilefit.search.params import DEFAULT, ExactParams


class Run:
    """One ordering's search over a free problem; resumable by node budget."""

    def __init__(
        self,
        problem: FreeProblem,
        keyorder: Sequence[int],
        params: ExactParams = DEFAULT.exact,
        learned: Array | None = None,
    ) -> None:
        """``learned``: what the runs before learned (``learned_counts``), for the
        learned key of ``keyorder`` (``kernel.ordering.LEARNED``); none by default."""
        m = len(problem.blocks)
        nsec = problem.nsec

        def zeros(n: int) -> Array:
            return np.zeros(max(n, 1), dtype=np.int64)

        # Copying every frame's list needs at most m(m+1)/2 entries on one path.
        copy = min(params.copy_limit, m * (m + 1) // 2 + m + 1)
        tables = problem.tables
        search = State(
            rank=zeros(m),  # the kernel ranks the blocks when it starts
            keyorder=np.asarray(keyorder, dtype=np.int64),
            off=np.full(m, -1, dtype=np.int64),
            low=zeros(m),
            floor=zeros(nsec),
            total=problem.totals(),
            cuts=problem.cuts.copy(),
            edge_alive=np.ones(max(problem.n_edges, 1), dtype=np.int64),
            trail=Trail(*(zeros(max(params.trail_start, problem.trail_size)) for _ in range(2))),
            placed=zeros(m + 1),
            placed_mark=zeros(m + 1),
            frames=zeros((m + 2) * layout.NF),
            cand=zeros(copy + 2 * m + 1),
            pend=zeros((2 * nsec + 2) * layout.NP),
            cnt=zeros(layout.NC),
            mark=zeros(nsec),
            aff=zeros(nsec),
            cutp=zeros(problem.max_cut_points),
            tmp=zeros(m),
            learned=zeros(m) if learned is None else learned.copy(),
        )
        search.cnt[layout.C_COPY] = copy
        search.cnt[layout.C_STEP] = problem.trail_size
        if not COMPILED:  # plain Python indexes lists much faster than arrays
            tables = _lists(tables)
            search = _lists(search)
        self.problem = problem
        self.tables = tables
        self.state = search
        self.status = layout.EXHAUSTED if problem.infeasible else layout.RUNNING

    @property
    def nodes(self) -> int:
        return int(self.state.cnt[layout.C_NODES])

    @property
    def stretch_prunes(self) -> int:
        """Placements the stretch bound failed where the bytes above the floor fitted."""
        return int(self.state.cnt[layout.C_STRETCH])

    def advance(self, budget: int, deadline: float = math.inf) -> int:
        """Search on until ``budget`` nodes in all or the ``deadline`` (``time.monotonic()``
        seconds; RUNNING then, to go on later); returns the kernel's status."""
        if self.status == layout.RUNNING and self.problem.blocks:
            status = self._kernel(budget, deadline)
            while status == layout.GROW:
                self._grow()
                status = self._kernel(budget, deadline)
            self.status = status
        elif not self.problem.blocks:
            self.status = layout.FOUND
        return self.status

    def _kernel(self, budget: int, deadline: float) -> int:
        """One call of the compiled kernel; Ctrl-C during it is a KeyboardInterrupt.

        The kernel reads the clock in numba's object mode (``jit.clock``). Python runs
        the SIGINT handler at the first bytecode it evaluates there, and numba's object
        mode does not check for the exception it raises: the call ends in a SystemError
        ("returned a result with an exception set") caused by the KeyboardInterrupt.
        That is the interrupt, and is raised as one (the run is not resumable after it).
        """
        search_kernel: Any = branch.run
        try:
            return int(search_kernel(self.tables, self.state, budget, deadline))
        except SystemError as error:
            if by_interrupt(error, context=True):
                raise KeyboardInterrupt from None
            raise

    def _grow(self) -> None:
        """Double the trail or cand, whichever lacks room for the kernel's next step."""
        search = self.state
        cnt = search.cnt
        need = int(cnt[layout.C_TRAIL] + cnt[layout.C_STEP])
        length = len(search.trail.tag)
        if need > length:
            for values in search.trail:
                _lengthen(values, _doubled(length, need))
        need = int(cnt[layout.C_CAND]) + len(self.problem.blocks)
        if need > len(search.cand):
            _lengthen(search.cand, _doubled(len(search.cand), need))

    def learned_counts(self) -> Array:
        """Per block, the subtrees under it that failed, in this run and those it was
        given: what the next run of the same problem learns from."""
        return np.asarray(self.state.learned, dtype=np.int64)

    def bases(self) -> dict[int, int]:
        """SearchModel block index -> base, once FOUND."""
        off = self.state.off
        return {k: int(off[i]) for i, k in enumerate(self.problem.blocks)}


Group = TypeVar("Group", bound=tuple[Any, ...])


def _doubled(length: int, need: int) -> int:
    while length < need:
        length *= 2
    return length


def _lengthen(values: Any, length: int) -> None:
    """Lengthen an array (or, in plain Python, a list) in place with zeros.

    In place, so the State keeps its arrays, and the allocator can extend a
    large block rather than hold the old and the new one at once.
    """
    if isinstance(values, list):
        values.extend([0] * (length - len(values)))
    else:
        values.resize(length, refcheck=False)


def _lists(arrays: Group) -> Group:
    """The same named tuple with every array, however deep, as a list."""
    parts = [a.tolist() if isinstance(a, np.ndarray) else _lists(a) for a in arrays]
    return type(arrays)(*parts)
