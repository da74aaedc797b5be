"""A placement written into a model as its offline plan (``OfflineMemoryAllocation``).

The plan is the model's metadata of that name: a buffer of 32-bit words
``[version 1, subgraphs, tensors, offset or -1 per tensor of every
subgraph]`` (tflite-micro's docs/memory_management.md). TFLM places a tensor
with an offset there as given, checking nothing, and plans the rest (scratch
buffers included) around them. An existing plan is replaced; every other
part of the model is kept. tflite-micro's own aligner then lays the buffers
out on 16 bytes again, as TFLM's tools do after a model is edited in Python.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from importlib import import_module
from pathlib import Path

import numpy as np

from tilefit.model.errors import InputError
from tilefit.toolchains.tflm.arena import ONLINE, Buffer
from tilefit.toolchains.tflm.capture import request_id
from tilefit.toolchains.tflm.graph import OFFLINE_PLAN, Graph
from tilefit.toolchains.tflm.schema import IDENTIFIER, schema, unpack

VERSION = 1


def plan_words(graph: Graph, buffers: Sequence[Buffer], offsets: Mapping[str, int]) -> list[int]:
    """The metadata's words: every planned tensor at its offset, every other one -1."""
    starts: list[int] = []
    count = 0
    for subgraph in graph.subgraphs:
        starts.append(count)
        count += len(subgraph.tensors)
    words = [ONLINE] * count
    for buffer in buffers:
        words[starts[buffer.subgraph] + buffer.tensor.index] = offsets[request_id(buffer)]
    return [VERSION, len(graph.subgraphs), count, *words]


def with_plan(data: bytes, words: Sequence[int], where: str) -> bytes:
    """The model with ``words`` as its offline plan, every other part kept."""
    fb = schema()
    model = unpack(data, where)
    payload = np.array(words, dtype="<i4").view(np.uint8)
    buffers = model.buffers if model.buffers is not None else []
    model.buffers = buffers
    metadata = model.metadata if model.metadata is not None else []
    model.metadata = metadata
    entry = next((m for m in metadata if _name(m.name) == OFFLINE_PLAN), None)
    plan = fb.BufferT()
    plan.data = payload
    if entry is None:
        buffers.append(plan)
        entry = fb.MetadataT()
        entry.name = OFFLINE_PLAN
        entry.buffer = len(buffers) - 1
        metadata.append(entry)
    elif sum(m.buffer == entry.buffer for m in metadata) == 1 and not _used(model, entry.buffer):
        buffers[entry.buffer] = plan
    else:  # the old plan's buffer is shared: leave it, give the plan its own
        buffers.append(plan)
        entry.buffer = len(buffers) - 1
    flatbuffers = import_module("flatbuffers")
    builder = flatbuffers.Builder(len(data) + len(payload) + 1024)
    builder.Finish(model.Pack(builder), file_identifier=IDENTIFIER)
    return _aligned(bytes(builder.Output()))


def _used(model: object, index: int) -> bool:
    """A tensor of the model keeps its data in that buffer."""
    return any(
        t.buffer == index
        for s in getattr(model, "subgraphs", None) or []
        for t in (s.tensors or [])
    )


def _aligned(data: bytes) -> bytes:
    """The model laid out again by tflite-micro's aligner (buffers on 16 bytes)."""
    try:
        align = import_module(
            "tflite_micro.tensorflow.lite.micro.tools.tflite_flatbuffer_align_wrapper"
        )
    except ImportError:
        return data  # an older tflite-micro: TFLM reads the model unaligned as well
    with tempfile.TemporaryDirectory(prefix="tilefit-tflm-") as folder:
        given, made = Path(folder) / "in.tflite", Path(folder) / "out.tflite"
        given.write_bytes(data)
        align.align_tflite_model(str(given), str(made))
        return made.read_bytes()


def _name(value: object) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value or "")


def check_plan(data: bytes, where: str) -> tuple[int, ...]:
    """The offline plan a written model carries, read back as TFLM reads it."""
    from tilefit.toolchains.tflm.graph import read_graph

    graph = read_graph(data, where)
    if graph.offline is None:
        raise InputError(OFFLINE_PLAN, "the written model carries no offline plan", where)
    return graph.offline
