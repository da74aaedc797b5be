"""One allocation attempt as the replay's input (``tilefit.model.lmem``): the chip, the
tensors (bytes, arc, in the group's own order), the timestep table, who reads what."""

from __future__ import annotations

from dataclasses import dataclass

from tilefit.model.lmem import LmemAllocator, Op, Step, Tensor
from tilefit.toolchains.tpumlir.attempt import Attempt, Chip
from tilefit.toolchains.tpumlir.graph import Graph
from tilefit.toolchains.tpumlir.table import Timestep


@dataclass(frozen=True)
class Problem:
    """One attempt's input: the chip and what its allocator is given."""

    chip: Chip
    allocator: LmemAllocator

    @property
    def buffers(self) -> tuple[Tensor, ...]:
        return self.allocator.tensors

    @property
    def period(self) -> int:
        return self.allocator.period


def problem_of(attempt: Attempt, graph: Graph) -> Problem | None:
    """The attempt as the replay's input; None without its timestep table."""
    if attempt.table is None:
        return None
    index = {c.name: c.index for r in attempt.rounds for c in r}
    unseen = len(index) + 1000  # a tensor never a candidate: after the others
    order = sorted(
        range(len(attempt.tensors)),
        key=lambda i: index.get(attempt.tensors[i].name, unseen + i),
    )
    tensors = tuple(
        Tensor(
            t.name,
            t.size,
            t.arc,
            scratch=t.kind == "LMEM_OPERATION",
            weight=t.writer == "top.Weight",
        )
        for t in (attempt.tensors[i] for i in order)
    )
    return problem_on(attempt.chip, tensors, attempt.table, graph, attempt.allow_bank_conflict)


def problem_on(
    chip: Chip,
    tensors: tuple[Tensor, ...],
    table: tuple[Timestep, ...],
    graph: Graph,
    allow_bank_conflict: bool = False,
) -> Problem:
    """The allocator's input for ``tensors`` (in the group's own order) on ``table``."""
    inputs = LmemAllocator(
        chip.eu_bytes,
        chip.bank_bytes,
        allow_bank_conflict,
        tensors,
        tuple(_step(row) for row in table),
        _ops(table, tensors, graph),
    )
    return Problem(chip, inputs)


def _step(row: Timestep) -> Step:
    return Step(
        tuple(layer.name for layer in row.layers),
        tuple(m.name for m in row.transfers if not m.store),
        tuple(m.name for m in row.transfers if m.store),
    )


def _ops(table: tuple[Timestep, ...], tensors: tuple[Tensor, ...], graph: Graph) -> tuple[Op, ...]:
    """Who reads what, as far as the allocator asks: the group's ops and the writers of
    its tensors (in-place reuse asks about a tensor's writer, in the group or not)."""
    names = [layer.name for row in table for layer in row.layers]
    names += [t.name for t in tensors]
    found = (graph.nodes.get(name) for name in dict.fromkeys(names))
    return tuple(Op(n.name, n.reads, n.in_place) for n in found if n is not None)
