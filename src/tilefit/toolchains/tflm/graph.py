"""A .tflite model as plain data: what TFLM's arena planning reads of it.

Each tensor's bytes are TFLM's (``TfLiteTypeSizeOf`` times the elements of
its shape); a tensor is constant when its buffer holds data (TFLM points it
into the flatbuffer). Operators keep the subgraphs they call: TFLM's planner
follows IF, WHILE and CALL_ONCE into theirs (micro_allocation_info.cc).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Any

from tilefit.model.errors import InputError
from tilefit.toolchains.tflm.schema import builtin_names, type_names, unpack

# TfLiteTypeSizeOf (memory_helpers.cc); a type missing here makes TFLM fail too.
TYPE_BYTES = {
    "FLOAT16": 2,
    "BFLOAT16": 2,
    "FLOAT32": 4,
    "FLOAT64": 8,
    "INT16": 2,
    "INT32": 4,
    "UINT32": 4,
    "UINT8": 1,
    "UINT16": 2,
    "INT8": 1,
    "INT64": 8,
    "UINT64": 8,
    "BOOL": 1,
    "RESOURCE": 4,
    "COMPLEX64": 8,
    "COMPLEX128": 16,
    "INT4": 1,
}
# The operators whose planning follows the subgraphs they call, and the options naming them.
CALLS = {
    "IF": ("thenSubgraphIndex", "elseSubgraphIndex"),
    "WHILE": ("condSubgraphIndex", "bodySubgraphIndex"),
    "CALL_ONCE": ("initSubgraphIndex",),
}
# Other operators that name subgraphs: TFLM's planner does not follow them.
_CALLING_OPTIONS = ("SubgraphIndex", "subgraphIndex", "Subgraph")
OFFLINE_PLAN = "OfflineMemoryAllocation"


@dataclass(frozen=True, slots=True)
class Tensor:
    index: int
    name: str
    shape: tuple[int, ...]
    dtype: str
    bytes: int
    constant: bool  # its buffer holds data: TFLM points it into the model
    variable: bool  # a variable tensor: TFLM keeps it in the tail, not the plan


@dataclass(frozen=True, slots=True)
class Operator:
    index: int
    code: str  # the builtin operator's name, or "CUSTOM:NAME"
    inputs: tuple[int, ...]  # -1: an optional input left out
    outputs: tuple[int, ...]
    intermediates: tuple[int, ...]
    calls: tuple[int, ...]  # the subgraphs TFLM's planner follows into, in its order


@dataclass(frozen=True, slots=True)
class Subgraph:
    index: int
    name: str
    tensors: tuple[Tensor, ...]
    operators: tuple[Operator, ...]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Graph:
    """The model's subgraphs, and the offline plan it carries (None: none)."""

    subgraphs: tuple[Subgraph, ...]
    offline: tuple[int, ...] | None  # one offset or -1 per tensor of every subgraph

    @property
    def tensor_count(self) -> int:
        return sum(len(s.tensors) for s in self.subgraphs)


def read_graph(data: bytes, where: str) -> Graph:
    """The graph of a .tflite model; InputError (naming ``where``) for what TFLM cannot plan."""
    model = unpack(data, where)
    ops = builtin_names()
    types = type_names()
    buffers = model.buffers or []
    codes = model.operatorCodes or []
    subgraphs = tuple(
        _subgraph(i, s, buffers, codes, ops, types, where) for i, s in enumerate(model.subgraphs)
    )
    for subgraph in subgraphs:
        for op in subgraph.operators:
            for called in op.calls:
                if not 0 <= called < len(subgraphs):
                    raise InputError(
                        f"subgraph {subgraph.index} operator {op.index} ({op.code})",
                        f"calls subgraph {called}, which the model does not have",
                        where,
                    )
    graph = Graph(subgraphs, _offline(model, buffers, where))
    if graph.offline is not None and len(graph.offline) != graph.tensor_count:
        raise InputError(
            OFFLINE_PLAN,
            f"holds {len(graph.offline)} offsets for {graph.tensor_count} tensors "
            "(TFLM refuses such a model)",
            where,
        )
    return graph


def _subgraph(
    index: int,
    raw: Any,
    buffers: list[Any],
    codes: list[Any],
    ops: dict[int, str],
    types: dict[int, str],
    where: str,
) -> Subgraph:
    tensors = tuple(
        _tensor(index, i, t, buffers, types, where) for i, t in enumerate(raw.tensors or [])
    )
    operators = tuple(
        _operator(index, i, op, codes, ops, len(tensors), where)
        for i, op in enumerate(raw.operators or [])
    )
    name = _text(raw.name) or f"subgraph {index}"
    inputs = tuple(int(i) for i in (raw.inputs if raw.inputs is not None else []))
    outputs = tuple(int(i) for i in (raw.outputs if raw.outputs is not None else []))
    for tensor in (*inputs, *outputs):
        if not 0 <= tensor < len(tensors):
            raise InputError(
                f"subgraph {index}", f"names tensor {tensor}, which it does not have", where
            )
    return Subgraph(index, name, tensors, operators, inputs, outputs)


def _tensor(
    subgraph: int, index: int, raw: Any, buffers: list[Any], types: dict[int, str], where: str
) -> Tensor:
    name = _text(raw.name) or f"tensor {index}"
    place = f"subgraph {subgraph} tensor {index} ({name})"
    shape = tuple(int(d) for d in (raw.shape if raw.shape is not None else []))
    # TFLM sizes a tensor by its shape; a signature's -1 (the batch left open by the
    # converter) with a concrete shape beside it is not dynamic to TFLM.
    if any(d < 0 for d in shape):
        raise InputError(
            place,
            f"has a dynamic shape {list(shape)}: TFLM plans static shapes only "
            "(convert the model with fixed input shapes)",
            where,
        )
    dtype = types.get(raw.type, f"type {raw.type}")
    if dtype not in TYPE_BYTES:
        raise InputError(place, f"has type {dtype}, which TFLM cannot size", where)
    buffer = buffers[raw.buffer] if 0 <= raw.buffer < len(buffers) else None
    constant = buffer is not None and (
        (buffer.data is not None and len(buffer.data) > 0) or buffer.offset > 1
    )
    return Tensor(
        index, name, shape, dtype, TYPE_BYTES[dtype] * prod(shape), constant, bool(raw.isVariable)
    )


def _operator(
    subgraph: int,
    index: int,
    raw: Any,
    codes: list[Any],
    ops: dict[int, str],
    tensor_count: int,
    where: str,
) -> Operator:
    place = f"subgraph {subgraph} operator {index}"
    if not 0 <= raw.opcodeIndex < len(codes):
        raise InputError(place, f"names operator code {raw.opcodeIndex}, which is missing", where)
    opcode = codes[raw.opcodeIndex]
    builtin = max(opcode.builtinCode, opcode.deprecatedBuiltinCode)
    code = ops.get(builtin, f"builtin {builtin}")
    if code == "CUSTOM":
        custom = _text(opcode.customCode) or "?"
        raise InputError(
            place,
            f"is the custom operator {custom}: how TFLM plans its tensors and scratch "
            "buffers is not known to tilefit",
            where,
        )
    calls = tuple(int(getattr(raw.builtinOptions, f)) for f in CALLS.get(code, ()))
    if not calls and raw.builtinOptions is not None:
        named = [f for f in vars(raw.builtinOptions) if f.endswith(_CALLING_OPTIONS)]
        if named:
            raise InputError(
                place,
                f"{code} calls another subgraph, which TFLM's planner does not follow "
                "(it follows IF, WHILE and CALL_ONCE only)",
                where,
            )
    inputs = tuple(int(i) for i in (raw.inputs if raw.inputs is not None else []))
    outputs = tuple(int(i) for i in (raw.outputs if raw.outputs is not None else []))
    intermediates = tuple(
        int(i) for i in (raw.intermediates if raw.intermediates is not None else [])
    )
    for tensor in (*outputs, *intermediates, *(i for i in inputs if i >= 0)):
        if not 0 <= tensor < tensor_count:
            raise InputError(place, f"names tensor {tensor}, which is missing", where)
    return Operator(index, code, inputs, outputs, intermediates, calls)


def _offline(model: Any, buffers: list[Any], where: str) -> tuple[int, ...] | None:
    for entry in model.metadata or []:
        if _text(entry.name) != OFFLINE_PLAN:
            continue
        buffer = buffers[entry.buffer] if 0 <= entry.buffer < len(buffers) else None
        raw = b"" if buffer is None or buffer.data is None else bytes(buffer.data)
        if len(raw) < 12 or len(raw) % 4:
            raise InputError(OFFLINE_PLAN, "its buffer is not a list of 32-bit words", where)
        words = [
            int.from_bytes(raw[i : i + 4], "little", signed=True) for i in range(0, len(raw), 4)
        ]
        count = words[2]
        if count != len(words) - 3:
            raise InputError(
                OFFLINE_PLAN, f"says {count} offsets but holds {len(words) - 3}", where
            )
        return tuple(words[3:])
    return None


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
