"""What TPU-MLIR's local-memory allocator (``assignLmemAddr``) is given for one attempt,
as plain data: the capture's ``allocator`` object (docs/format.md) and the toolchain's
trace both make it, and ``tilefit.engine.lmem`` replays the allocator on it.

A layer group runs its slices software-pipelined over T timesteps: the timestep table
repeats, so a tensor's lifetime is an arc on a circle of T steps, from its first
timestep to its last, both inclusive, and it may wrap (``first > last``: from ``first``
to T - 1, then from 0 to ``last``). A tensor held in LMEM for the whole group
(``hold_in_lmem``: weights loaded once) is live at every timestep.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

NAME = "tpumlir"
"""The allocator's name, in a capture's ``allocator.name`` and ``production``."""


@dataclass(frozen=True, slots=True)
class Arc:
    """``[start, end]`` on a circle of ``period`` timesteps (inclusive; may wrap)."""

    start: int
    end: int
    period: int
    held: bool = False  # live at every timestep, whatever start and end say

    @property
    def wraps(self) -> bool:
        return self.start > self.end

    @property
    def length(self) -> int:
        """The timesteps it covers (all of them when held)."""
        return self.period if self.held else self.span

    @property
    def span(self) -> int:
        """The timesteps from start to end, held or not."""
        if self.wraps:
            return self.end + 1 + self.period - self.start
        return self.end - self.start + 1

    def steps(self) -> frozenset[int]:
        if self.held:
            return frozenset(range(self.period))
        return frozenset((self.start + i) % self.period for i in range(self.length))

    def meets(self, other: Arc) -> bool:
        """Whether the two arcs share a timestep (TPU-MLIR's ``is_timestep_overlapped``
        for two unheld arcs: two wrapping arcs always meet, both covering T - 1 ... 0)."""
        if self.held or other.held:
            return True
        if not self.wraps and not other.wraps:
            return self.start <= other.end and other.start <= self.end
        if self.wraps and other.wraps:
            return True
        straight, wrapping = (other, self) if self.wraps else (self, other)
        return straight.start <= wrapping.end or wrapping.start <= straight.end

    def __str__(self) -> str:
        text = f"{self.start}->{self.end}"
        return f"{text} (held)" if self.held else text


@dataclass(frozen=True, slots=True)
class Tensor:
    """One tensor the allocator places, by its TPU-MLIR name."""

    name: str
    size: int  # its bytes as the allocator asks for them (the end aligned up when placed)
    arc: Arc
    scratch: bool = False  # an op's buffer (LMEM_OPERATION): its op's alone, never moved
    weight: bool = False  # written by a top.Weight: never takes another's slot in place


@dataclass(frozen=True, slots=True)
class Step:
    """One timestep of the group's table: the ops the NPU runs (each named by the tensor it
    writes) and the tensors the GDMA loads and stores."""

    ops: tuple[str, ...]
    loads: tuple[str, ...] = ()
    stores: tuple[str, ...] = ()

    def moves(self, tensor: str) -> bool:
        return tensor in self.loads or tensor in self.stores


@dataclass(frozen=True, slots=True)
class Op:
    """An op, named by the tensor it writes: the tensors it reads, in operand order, and
    whether its output may take its first input's slot (TPU-MLIR's in-place kinds)."""

    name: str
    reads: tuple[str, ...]
    in_place: bool = False


@dataclass(frozen=True)
class LmemAllocator:
    """One attempt's input, but the LMEM's bytes (the capture's memory): the EU bytes
    every end is aligned up to, the bank bytes, the tensors in the group's own order
    (which ties keep), the timestep table and who reads what."""

    eu_bytes: int
    bank_bytes: int
    allow_bank_conflict: bool
    tensors: tuple[Tensor, ...]
    steps: tuple[Step, ...]
    ops: tuple[Op, ...] = ()  # the group's ops and the writers of its tensors
    name: str = NAME

    @property
    def period(self) -> int:
        return len(self.steps)

    @cached_property
    def op_by_name(self) -> dict[str, Op]:
        return {op.name: op for op in self.ops}

    def reads(self, op: str, tensor: str) -> bool:
        node = self.op_by_name.get(op)
        return node is not None and tensor in node.reads
