"""One call of TPU-MLIR's allocator as its trace states it: the chip's LMEM, the group,
its timestep table, each round's candidates, each tensor placed or left."""

from __future__ import annotations

from dataclasses import dataclass

from tilefit.toolchains.tpumlir.arcs import Arc
from tilefit.toolchains.tpumlir.slices import Slices
from tilefit.toolchains.tpumlir.table import GroupOp, Timestep


@dataclass(frozen=True, slots=True)
class Chip:
    """One lane's local memory as the chip's allocator sees it."""

    lmem_bytes: int
    banks: int
    bank_bytes: int
    eu_bytes: int  # every end is aligned up to this
    lanes: int


@dataclass(frozen=True, slots=True)
class Candidate:
    """Where one tensor could go in a round: the first block it would take."""

    name: str
    kind: str  # LMEM_ACTIVATION, LMEM_WEIGHT, LMEM_OPERATION
    timesteps: tuple[int, int]  # its arc's ends
    addr: int  # -1: no block
    block: int  # the block's bytes (the tensor's own when no block)
    area: int  # what the round's order sorts by (lifetime x bytes)
    index: int  # ``idx``: its place among the group's buffers (ties keep this order)
    line: int


@dataclass(frozen=True, slots=True)
class TensorLine:
    """One tensor of an attempt as the trace states it, placed or not. An op's scratch
    buffer (``LMEM_OPERATION``) is named ``OP.buffer`` after the op it serves (the trace
    prints a stale tensor's name for it)."""

    name: str
    kind: str  # LMEM_ACTIVATION, LMEM_WEIGHT, LMEM_OPERATION
    writer: str  # the type of the op that writes it
    addr: int  # -1: not placed (the attempt failed first)
    size: int
    arc: Arc
    mode: str  # TIMESTEP_LOAD, TIMESTEP_STORE, TIMESTEP_LDST_UNKNOWN, ...
    line: int

    @property
    def placed(self) -> bool:
        return self.addr >= 0


@dataclass(frozen=True, slots=True)
class Group:
    """A layer group the search tried: its ops' span in the function and its ops."""

    start: int
    end: int
    ops: tuple[GroupOp, ...]
    line: int

    @property
    def key(self) -> tuple[int, int]:
        return (self.start, self.end)


@dataclass(frozen=True, slots=True)
class Attempt:
    """One call of ``assignLmemAddr``."""

    index: int  # its place in the trace
    line: int  # its first line (lmem_spec)
    end_line: int  # its closing line (assignLmemAddr_finish)
    chip: Chip
    group: Group | None  # the group whose ops its table runs (None: no table, or not shown)
    table: tuple[Timestep, ...] | None  # its timestep table, None: not printed in the trace
    table_line: int | None  # where that table's heading is
    slices: Slices
    allow_bank_conflict: bool
    placed: tuple[TensorLine, ...]  # in the order placed
    failed: tuple[TensorLine, ...]  # those left when it failed
    rounds: tuple[tuple[Candidate, ...], ...]  # each round's candidates, in its order
    success: bool
    lmem_used: int  # the highest end placed

    @property
    def period(self) -> int:
        """T, the timesteps of its table (without a table: the least the arcs allow)."""
        if self.table is not None:
            return len(self.table)
        return 1 + max(max(t.arc.start, t.arc.end) for t in self.tensors)

    @property
    def tensors(self) -> tuple[TensorLine, ...]:
        return self.placed + self.failed

    def plan(self) -> dict[str, int]:
        """Each tensor's address, by name (scratch buffers left out), where it succeeded."""
        return {t.name: t.addr for t in self.placed if t.kind != "LMEM_OPERATION"}
