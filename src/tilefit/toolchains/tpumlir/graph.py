"""Which ops read which tensors, by TPU-MLIR's names, from the module the layer-group
pass starts from (``*_tpu_opt.mlir``).

The allocator asks it three things: whether the NPU touches a tensor in a timestep (an
op there writes or reads it), which of those ops relate two tensors (bank avoidance),
and whether an op may write its output in its first input's slot (in-place: Add, Sub,
Mul, Div, Min, Max, Reshape, an F32 Scale, a MulShift on integers, each only when its
output is no larger than that input).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tilefit.model.errors import InputError
from tilefit.toolchains.tpumlir.mlir import (
    Op,
    element_type,
    operand_bytes,
    ops,
    result_bytes,
    value_names,
)

_IN_PLACE = frozenset(
    f"tpu.{kind}" for kind in ("Add", "Sub", "Mul", "Div", "Min", "Max", "Reshape")
)


@dataclass(frozen=True, slots=True)
class Node:
    """One op: its type and the tensors it reads, by name."""

    kind: str
    name: str  # the tensor it writes
    reads: tuple[str, ...]  # in operand order
    in_place: bool = False  # its output may take its first input's slot


@dataclass(frozen=True, slots=True)
class Graph:
    nodes: dict[str, Node]  # by the name of the tensor each writes

    def reads(self, op: str, tensor: str) -> bool:
        node = self.nodes.get(op)
        return node is not None and tensor in node.reads

    def readers(self, tensor: str) -> tuple[str, ...]:
        return tuple(n.name for n in self.nodes.values() if tensor in n.reads)


def read_graph(path: Path) -> Graph:
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError("", f"cannot read: {error}", str(path)) from None
    graph = graph_of(text)
    if not graph.nodes:
        raise InputError("", "no tpu op in this module (not a TPU-MLIR module)", str(path))
    return graph


def graph_of(text: str) -> Graph:
    names = value_names(text)
    nodes = {}
    for op in ops(text):
        if not op.kind.startswith("tpu.") or not op.name:
            continue
        reads = tuple(names[(op.scope, v)] for v in op.operands if (op.scope, v) in names)
        nodes[op.name] = Node(op.kind, op.name, reads, _in_place(op))
    return Graph(nodes)


def _in_place(op: Op) -> bool:
    """TPU-MLIR's ``isInplaceOp`` (its Add-like ops with more than two inputs only when
    no input repeats; every kind only when the output is no larger than input 0)."""
    first = element_type(op, 0)
    if op.kind in _IN_PLACE:
        kind_allows = not (len(op.operands) > 2 and len(set(op.operands)) != len(op.operands))
    elif op.kind == "tpu.Scale":
        kind_allows = first == "f32"
    elif op.kind == "tpu.MulShift":
        kind_allows = first is not None and first != "f32"
    else:
        return False
    given, made = operand_bytes(op, 0), result_bytes(op)
    return kind_allows and given is not None and made is not None and given >= made
