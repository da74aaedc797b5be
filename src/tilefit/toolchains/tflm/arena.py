"""The tensors TFLM plans in its arena's head, with their lifetimes (micro_allocation_info.cc).

- Planned: a tensor with no data in the model, not a variable, of non-zero
  size, and not a VAR_HANDLE output (its kernel points it at the resource id
  before the plan is made). A variable with an offline offset is planned too.
- Lifetimes are on TFLM's allocation-scope axis, inclusive at both ends: a
  subgraph's inputs at the scope it is entered, +1 per operator; an
  operator's outputs are created at its scope and its inputs used until then,
  after the subgraphs it calls (IF, WHILE, CALL_ONCE), each one scope further;
  a subgraph's outputs live until its last scope.
- Sizes are rounded up to 16 bytes (``CreatePlan``), and the planner's
  offsets are multiples of 16 as a result.
"""

from __future__ import annotations

from dataclasses import dataclass

from tilefit.model.errors import InputError
from tilefit.toolchains.tflm.graph import Graph, Operator, Tensor

ALIGNMENT = 16  # MicroArenaBufferAlignment()
ONLINE = -1  # kOnlinePlannedBuffer: no offline offset


@dataclass(frozen=True, slots=True)
class Buffer:
    """One tensor as TFLM's planner gets it, in the planner's order."""

    subgraph: int
    tensor: Tensor
    size: int  # rounded up to ALIGNMENT
    first: int  # first_created, on the scope axis (-1: never created)
    last: int  # last_used, inclusive
    offline: int  # the model's offline offset, or ONLINE
    maker: Operator | None  # the operator that creates it (None: a subgraph input)


def planned(graph: Graph, where: str) -> list[Buffer]:
    """Every buffer TFLM plans in the head, in the order it adds them to the planner."""
    for subgraph in graph.subgraphs:
        for op in subgraph.operators:
            for i in op.intermediates:
                if subgraph.tensors[i].bytes:
                    raise InputError(
                        f"subgraph {subgraph.index} operator {op.index} ({op.code})",
                        f"has an intermediate tensor of {subgraph.tensors[i].bytes} bytes, "
                        "which TFLM does not support",
                        where,
                    )
    lifetimes = _Lifetimes(graph, where)
    lifetimes.mark(0)
    out: list[Buffer] = []
    index = 0
    for subgraph in graph.subgraphs:
        handles = {t for op in subgraph.operators if op.code == "VAR_HANDLE" for t in op.outputs}
        for tensor in subgraph.tensors:
            offline = graph.offline[index] if graph.offline is not None else ONLINE
            index += 1
            wanted = not tensor.constant and not tensor.variable and tensor.bytes != 0
            wanted = (wanted and tensor.index not in handles) or (
                tensor.variable and offline != ONLINE
            )
            if not wanted:
                continue
            first, last = lifetimes.span[subgraph.index][tensor.index]
            size = -(-tensor.bytes // ALIGNMENT) * ALIGNMENT
            maker = lifetimes.maker[subgraph.index].get(tensor.index)
            out.append(Buffer(subgraph.index, tensor, size, first, last, offline, maker))
    return out


class _Lifetimes:
    """MarkAllocationLifetimes, walked as TFLM walks it."""

    def __init__(self, graph: Graph, where: str) -> None:
        self.graph = graph
        self.where = where
        self.scope = 0
        self.span = [[(-1, -1) for _ in s.tensors] for s in graph.subgraphs]
        self.maker: list[dict[int, Operator]] = [{} for _ in graph.subgraphs]
        self.depth = 0

    def _created(self, subgraph: int, tensor: int) -> None:
        first, last = self.span[subgraph][tensor]
        if first == -1:
            self.span[subgraph][tensor] = (self.scope, last)

    def _used(self, subgraph: int, tensor: int) -> None:
        first, _ = self.span[subgraph][tensor]
        self.span[subgraph][tensor] = (first, self.scope)

    def mark(self, index: int) -> None:
        self.depth += 1
        if self.depth > len(self.graph.subgraphs):  # TFLM itself would recurse without end
            raise InputError(
                f"subgraph {index}", "calls itself: TFLM cannot plan recursion", self.where
            )
        subgraph = self.graph.subgraphs[index]
        for tensor in subgraph.inputs:
            self._created(index, tensor)
            self._used(index, tensor)
        for op in subgraph.operators:
            self.scope += 1
            for tensor in op.outputs:
                self._created(index, tensor)
                self.maker[index].setdefault(tensor, op)
            for called in op.calls:
                self.scope += 1
                self.mark(called)
            for tensor in op.inputs:
                if tensor >= 0:
                    self._used(index, tensor)
            for tensor in op.outputs:
                self._used(index, tensor)
        for tensor in subgraph.outputs:
            self._created(index, tensor)
            self._used(index, tensor)
        self.depth -= 1
