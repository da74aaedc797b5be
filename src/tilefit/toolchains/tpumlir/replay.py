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

from tilefit.toolchains.tpumlir.arcs import Arc
from tilefit.toolchains.tpumlir.banks import shares_bank_time
from tilefit.toolchains.tpumlir.freelist import Block, align_up, at_least, exclude
from tilefit.toolchains.tpumlir.problem import Buffer, Problem


@dataclass(frozen=True, slots=True)
class Round:
    """One round: the order it took the tensors in and each one's candidate (-1: none)."""

    order: tuple[str, ...]
    candidates: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Replayed:
    placed: tuple[tuple[str, int], ...]  # (tensor, address) in the order placed
    failed: tuple[str, ...]  # the tensors left when it failed, in the last round's order
    rounds: tuple[Round, ...]
    # tensors placed in banks they were to avoid (no block outside them held them)
    conflicts: tuple[str, ...] = ()

    @property
    def success(self) -> bool:
        return not self.failed


def replay(problem: Problem) -> Replayed:
    """Every round of ``assignLmemAddr`` on this problem."""
    state = _State(problem)
    rounds: list[Round] = []
    placed: list[tuple[str, int]] = []
    remaining = list(problem.buffers)
    recent: Buffer | None = None
    while remaining:
        marked = state.marked()  # stable, as TPU-MLIR's std::list::sort
        remaining.sort(key=lambda b: (b.name not in marked, -b.arc.length * b.size, b.arc.start))
        order, candidates = [], []
        target: tuple[int, Buffer] | None = None
        for buffer in remaining:
            if recent is None:  # the first: at 0, if it fits at all
                address = 0 if buffer.size <= problem.chip.lmem_bytes else -1
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

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        whole: list[Block] = [(0, problem.chip.lmem_bytes)]
        self.free = {b.name: list(whole) for b in problem.buffers}
        self.banks: dict[str, set[int]] = {b.name: set() for b in problem.buffers}
        self.address: dict[str, int] = {}
        self.in_banks: set[str] = set()  # whose candidate lies in banks it was to avoid
        self.placed_in_banks: list[str] = []
        names = {b.name for b in problem.buffers}
        self.npu: list[set[str | None]] = []
        self.gdma: list[set[str | None]] = []
        for row in problem.table:
            if not row.layers:
                self.npu.append(set())
                self.gdma.append(set())
                continue
            touched: set[str | None] = set()
            for layer in row.layers:
                node = problem.graph.nodes.get(layer.name)
                reads = node.reads if node is not None else ()
                for name in (*reads, layer.name):
                    touched.add(name if name in names else None)  # TPU-MLIR: a null key
            self.npu.append(touched)
            self.gdma.append({m.name if m.name in names else None for m in row.transfers})

    def marked(self) -> set[str | None]:
        """The tensors the NPU or the GDMA still touch in some timestep (``conflict``)."""
        return set().union(*self.npu, *self.gdma)

    def conflicts(self) -> tuple[str, ...]:
        return tuple(self.placed_in_banks)

    def place(self, buffer: Buffer, address: int) -> None:
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

    def candidate(self, buffer: Buffer, recent: Buffer) -> int:
        """TPU-MLIR's ``global_find_avail_lmem_localtion``: the tensor's banks to avoid
        and free list updated with the tensor placed last, then its block."""
        chip = self.problem.chip
        placed_at = self.address[recent.name]
        if shares_bank_time(self.problem, buffer, recent):
            self.banks[buffer.name] |= _banks(placed_at, recent.size, chip.bank_bytes)
        free = self.free[buffer.name]
        if buffer.arc.meets(recent.arc):
            end = align_up(placed_at + recent.size, chip.eu_bytes)
            free, split = exclude(free, placed_at, end - placed_at)
            if split and self._in_place(buffer, recent):
                slot = (placed_at, recent.size)
                at = next((i for i, b in enumerate(free) if b[0] > placed_at), len(free))
                free.insert(at, slot)
        free = at_least(free, buffer.size)
        self.free[buffer.name] = free
        if not free:
            return -1
        if self.problem.allow_bank_conflict:
            return free[0][0] if free[0][0] < chip.lmem_bytes else -1
        outside = list(free)
        for bank in sorted(self.banks[buffer.name]):
            outside, _ = exclude(outside, bank * chip.bank_bytes, chip.bank_bytes)
        fitting = at_least(outside, buffer.size)
        if fitting:
            self.in_banks.discard(buffer.name)
        else:  # TPU-MLIR takes a bank conflict rather than fail
            self.in_banks.add(buffer.name)
        address = fitting[0][0] if fitting else free[0][0]
        return address if address < chip.lmem_bytes else -1

    def _in_place(self, buffer: Buffer, recent: Buffer) -> bool:
        """Whether the tensor may take the slot of the one placed last: the last is the
        first input of an in-place op writing this one, ends where this one starts and
        is not stored then; or this one is the first input of an in-place op writing the
        last, which starts where this one ends."""
        graph = self.problem.graph
        if buffer.scratch or buffer.name in self.problem.weights:
            return False  # TPU-MLIR returns at once for these
        writer = graph.nodes.get(buffer.name)
        if (
            writer is not None
            and self._may_reuse(writer.name)
            and writer.reads[:1] == (recent.name,)
        ):
            stored = any(
                m.store and m.name == recent.name
                for m in self.problem.table[recent.arc.end].transfers
            )
            return (
                recent.arc.end == buffer.arc.start
                and not stored
                and _chains(recent.arc, buffer.arc)
            )
        reader = graph.nodes.get(recent.name)
        if (
            reader is not None
            and self._may_reuse(reader.name)
            and reader.reads[:1] == (buffer.name,)
        ):
            return recent.arc.start == buffer.arc.end and _chains(buffer.arc, recent.arc)
        return False

    def _may_reuse(self, op: str) -> bool:
        """TPU-MLIR's ``isInplaceOp``: an in-place kind whose first input no other op of
        the group reads (as measured: the group's ops are what count, not the module's)."""
        node = self.problem.graph.nodes.get(op)
        if node is None or not node.in_place or not node.reads:
            return False
        first = node.reads[0]
        readers = {
            layer.name
            for row in self.problem.table
            for layer in row.layers
            if self.problem.graph.reads(layer.name, first)
        }
        return len(readers) <= 1


def _chains(before: Arc, after: Arc) -> bool:
    """TPU-MLIR's ``can_membuf_inplace_alloc``: the second arc starts where the first
    ends, and where one of them wraps, the second ends before the first starts."""
    if after.start != before.end:
        return False
    if before.end > before.start and after.end > after.start:
        return True
    if (before.end < before.start and after.end > after.start) or (
        before.end > before.start and after.end < after.start
    ):
        return after.end < before.start
    return False


def _banks(address: int, size: int, bank_bytes: int) -> set[int]:
    return set(range(address // bank_bytes, (address + size - 1) // bank_bytes + 1))
