"""One allocation attempt as the replay's input: the chip, the tensors (bytes, arc, the
group's own order), the timestep table, who reads what."""

from __future__ import annotations

from dataclasses import dataclass

from tilefit.toolchains.tpumlir.arcs import Arc
from tilefit.toolchains.tpumlir.attempt import Attempt, Chip
from tilefit.toolchains.tpumlir.graph import Graph
from tilefit.toolchains.tpumlir.table import Timestep


@dataclass(frozen=True, slots=True)
class Buffer:
    """One tensor the allocator places."""

    name: str
    size: int
    arc: Arc
    index: int  # the group's own order, which ties keep
    scratch: bool = False  # an op's buffer (LMEM_OPERATION): its op's alone, never moved


@dataclass(frozen=True, slots=True)
class Problem:
    """One attempt's input: the chip, its tensors, its timestep table, who reads what."""

    chip: Chip
    buffers: tuple[Buffer, ...]
    table: tuple[Timestep, ...]
    graph: Graph
    allow_bank_conflict: bool
    weights: frozenset[str] = frozenset()  # tensors a top.Weight writes

    @property
    def period(self) -> int:
        return len(self.table)


def problem_of(attempt: Attempt, graph: Graph) -> Problem | None:
    """The attempt as the replay's input; None without its timestep table."""
    if attempt.table is None:
        return None
    index = {c.name: c.index for r in attempt.rounds for c in r}
    unseen = len(index) + 1000  # a tensor never a candidate: after the others
    buffers = tuple(
        Buffer(t.name, t.size, t.arc, index.get(t.name, unseen + i), t.kind == "LMEM_OPERATION")
        for i, t in enumerate(attempt.tensors)
    )
    ordered = tuple(sorted(buffers, key=lambda b: b.index))
    weights = frozenset(t.name for t in attempt.tensors if t.writer == "top.Weight")
    return Problem(
        attempt.chip, ordered, attempt.table, graph, attempt.allow_bank_conflict, weights
    )
