"""TPU-MLIR's local-memory allocator (``assignLmemAddr``) replayed, round by round.

Each round sorts the tensors still to place: first those the NPU or the GDMA still
touch in some timestep (the ``conflict`` mark), then by area (arc length x bytes, a
held tensor's the whole circle), then by first timestep, ties in the group's own
order. Every tensor keeps its own free list, all of LMEM at first; the tensor placed
last is taken out of the lists of those whose arcs meet its own (its end aligned up
to the EU bytes), and where the NPU and the GDMA use the two in one timestep its banks
join the tensor's banks to avoid. Each tensor's candidate is the first block of its
list outside those banks that holds it (else its first block that holds it: a bank
conflict allowed); the lowest candidate is placed. One tensor without a block fails
the attempt. In-place reuse: when taking the last tensor out of a list splits a block,
and the two are an in-place op's input and output meeting at one timestep, the last
tensor's slot goes back into the list (TPU-MLIR's ``insert_inplace_local_mem``).
"""

from __future__ import annotations

from dataclasses import dataclass

from tilefit.engine.lmem.banks import shares_bank_time
from tilefit.engine.lmem.freelist import Block, align_up, at_least, exclude
from tilefit.engine.lmem.inplace import in_place
from tilefit.model.lmem import LmemAllocator, Tensor


@dataclass(frozen=True, slots=True)
class Round:
    """One round: the order it took the tensors in and each one's candidate (-1: none)."""

    order: tuple[str, ...]
    candidates: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Replayed:
    """TPU-MLIR's allocator replayed: what it placed, in order, and where it failed."""

    placed: tuple[tuple[str, int], ...]  # (tensor, address) in the order placed
    failed: tuple[str, ...]  # the tensors left when it failed, in the last round's order
    rounds: tuple[Round, ...]
    # tensors placed in banks they were to avoid (no block outside them held them)
    conflicts: tuple[str, ...] = ()

    @property
    def success(self) -> bool:
        return not self.failed


def assign(inputs: LmemAllocator, lmem_bytes: int) -> Replayed:
    """Every round of ``assignLmemAddr`` on these inputs, in ``lmem_bytes`` of LMEM."""
    state = _State(inputs, lmem_bytes)
    rounds: list[Round] = []
    placed: list[tuple[str, int]] = []
    remaining = list(inputs.tensors)
    recent: Tensor | None = None
    while remaining:
        marked = state.marked()  # stable, as TPU-MLIR's std::list::sort
        remaining.sort(key=lambda b: (b.name not in marked, -b.arc.length * b.size, b.arc.start))
        order, candidates = [], []
        target: tuple[int, Tensor] | None = None
        for buffer in remaining:
            if recent is None:  # the first: at 0, if it fits at all
                address = 0 if buffer.size <= lmem_bytes else -1
            else:
                address = state.candidate(buffer, recent)
            order.append(buffer.name)
            candidates.append(address)
            if address < 0:
                break
            if target is None or address < target[0]:
                target = (address, buffer)
            if recent is None:
                break
        rounds.append(Round(tuple(order), tuple(candidates)))
        if candidates[-1] < 0 or target is None:
            left = tuple(b.name for b in remaining)
            return Replayed(tuple(placed), left, tuple(rounds), state.conflicts())
        address, chosen = target
        state.place(chosen, address)
        placed.append((chosen.name, address))
        remaining.remove(chosen)
        recent = chosen
    return Replayed(tuple(placed), (), tuple(rounds), state.conflicts())


class _State:
    """What the allocator keeps between rounds: each tensor's free list and banks to
    avoid, the addresses given, and the NPU's and GDMA's tensors per timestep."""

    def __init__(self, inputs: LmemAllocator, lmem_bytes: int) -> None:
        self.inputs = inputs
        self.lmem = lmem_bytes
        whole: list[Block] = [(0, lmem_bytes)]
        self.free = {b.name: list(whole) for b in inputs.tensors}
        self.banks: dict[str, set[int]] = {b.name: set() for b in inputs.tensors}
        self.address: dict[str, int] = {}
        self.in_banks: set[str] = set()  # whose candidate lies in banks it was to avoid
        self.placed_in_banks: list[str] = []
        names = {b.name for b in inputs.tensors}
        self.npu: list[set[str | None]] = []
        self.gdma: list[set[str | None]] = []
        for row in inputs.steps:
            if not row.ops:
                self.npu.append(set())
                self.gdma.append(set())
                continue
            touched: set[str | None] = set()
            for op in row.ops:
                node = inputs.op_by_name.get(op)
                reads = node.reads if node is not None else ()
                for name in (*reads, op):
                    touched.add(name if name in names else None)  # TPU-MLIR: a null key
            self.npu.append(touched)
            moved = (*row.loads, *row.stores)
            self.gdma.append({name if name in names else None for name in moved})

    def marked(self) -> set[str | None]:
        """The tensors the NPU or the GDMA still touch in some timestep (``conflict``)."""
        return set().union(*self.npu, *self.gdma)

    def conflicts(self) -> tuple[str, ...]:
        return tuple(self.placed_in_banks)

    def place(self, buffer: Tensor, address: int) -> None:
        self.address[buffer.name] = address
        if buffer.name in self.in_banks:
            self.placed_in_banks.append(buffer.name)
        del self.free[buffer.name]
        for npu, gdma in zip(self.npu, self.gdma, strict=True):
            npu.discard(buffer.name)
            if not npu and gdma:
                gdma.clear()
        for npu, gdma in zip(self.npu, self.gdma, strict=True):
            gdma.discard(buffer.name)
            if len(npu) == 1 and not gdma:
                npu.clear()

    def candidate(self, buffer: Tensor, recent: Tensor) -> int:
        """TPU-MLIR's ``global_find_avail_lmem_localtion``: the tensor's banks to avoid
        and free list updated with the tensor placed last, then its block."""
        inputs = self.inputs
        placed_at = self.address[recent.name]
        if shares_bank_time(inputs, buffer, recent):
            self.banks[buffer.name] |= _banks(placed_at, recent.size, inputs.bank_bytes)
        free = self.free[buffer.name]
        if buffer.arc.meets(recent.arc):
            end = align_up(placed_at + recent.size, inputs.eu_bytes)
            free, split = exclude(free, placed_at, end - placed_at)
            if split and self._in_place(buffer, recent):
                slot = (placed_at, recent.size)
                at = next((i for i, b in enumerate(free) if b[0] > placed_at), len(free))
                free.insert(at, slot)
        free = at_least(free, buffer.size)
        self.free[buffer.name] = free
        if not free:
            return -1
        if inputs.allow_bank_conflict:
            return free[0][0] if free[0][0] < self.lmem else -1
        outside = list(free)
        for bank in sorted(self.banks[buffer.name]):
            outside, _ = exclude(outside, bank * inputs.bank_bytes, inputs.bank_bytes)
        fitting = at_least(outside, buffer.size)
        if fitting:
            self.in_banks.discard(buffer.name)
        else:  # TPU-MLIR takes a bank conflict rather than fail
            self.in_banks.add(buffer.name)
        address = fitting[0][0] if fitting else free[0][0]
        return address if address < self.lmem else -1

    def _in_place(self, buffer: Tensor, recent: Tensor) -> bool:
        """Whether the tensor may take the slot of the one placed last, in place: either
        is the other's in-place input."""
        return in_place(self.inputs, recent, buffer) or in_place(
            self.inputs, buffer, recent, source_first=False
        )


def _banks(address: int, size: int, bank_bytes: int) -> set[int]:
    return set(range(address // bank_bytes, (address + size - 1) // bank_bytes + 1))
