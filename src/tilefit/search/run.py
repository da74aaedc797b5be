"""One ordering's search over a free problem: the kernel's state, resumable by node budget."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np

from tilefit.search import kernel, state
from tilefit.search.jit import COMPILED
from tilefit.search.problem import Array, FreeProblem
from tilefit.search.state import State, Trail


class Run:
    """One ordering's search over a free problem; resumable by node budget."""

    def __init__(self, problem: FreeProblem, keyorder: Sequence[int]) -> None:
        m = len(problem.blocks)
        nsec = problem.nsec

        def zeros(n: int) -> Array:
            return np.zeros(max(n, 1), dtype=np.int64)

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
            trail=Trail(*(zeros(problem.trail_size) for _ in range(3))),
            placed=zeros(m + 1),
            placed_mark=zeros(m + 1),
            frames=zeros((m + 2) * state.NF),
            cand=zeros(m * (m + 1) // 2 + m + 1),
            pend=zeros((2 * nsec + 2) * state.NP),
            cnt=zeros(state.NC),
            mark=zeros(nsec),
            aff=zeros(nsec),
            cutp=zeros(problem.max_cut_points),
            tmp=zeros(m),
        )
        if not COMPILED:  # plain Python indexes lists much faster than arrays
            tables = _lists(tables)
            search = _lists(search)
        self.problem = problem
        self.tables = tables
        self.state = search
        self.status = state.EXHAUSTED if problem.infeasible else state.RUNNING

    @property
    def nodes(self) -> int:
        return int(self.state.cnt[state.C_NODES])

    def advance(self, budget: int) -> int:
        """Search on until ``budget`` nodes in all; returns the kernel's status."""
        if self.status == state.RUNNING and self.problem.blocks:
            search_kernel: Any = kernel.run
            self.status = int(search_kernel(self.tables, self.state, budget))
        elif not self.problem.blocks:
            self.status = state.FOUND
        return self.status

    def bases(self) -> dict[int, int]:
        """Model block index -> base, once FOUND."""
        off = self.state.off
        return {k: int(off[i]) for i, k in enumerate(self.problem.blocks)}


Group = TypeVar("Group", bound=tuple[Any, ...])


def _lists(arrays: Group) -> Group:
    """The same named tuple with every array, however deep, as a list."""
    parts = [a.tolist() if isinstance(a, np.ndarray) else _lists(a) for a in arrays]
    return type(arrays)(*parts)
