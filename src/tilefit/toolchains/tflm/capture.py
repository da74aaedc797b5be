"""A TFLM model's arena head as a capture, and TFLM's own plan of it as a placement.

One request per tensor TFLM plans (``arena.planned``), named ``SUBGRAPH:TENSOR``
and labelled with the tensor's name, the operator that makes it, its shape
and type. Step t of the capture is TFLM's allocation scope t (one later when
a planned tensor is never used, which TFLM marks at scope -1), and a
lifetime ``[first, last]`` is the request's ``[first, last + 1)``. Sizes are
TFLM's, rounded to 16; offsets must be multiples of 16. The memory is the
head TFLM's planner makes (or ``capacity``).
"""

from __future__ import annotations

from collections.abc import Sequence

from tilefit.model.capture import Capture, Request
from tilefit.model.placement import Placement
from tilefit.toolchains.base import Allocator
from tilefit.toolchains.tflm.arena import ALIGNMENT, Buffer
from tilefit.toolchains.tflm.greedy import greedy_offsets, head

TOOL = "TFLM"
# tilefit's nearest strategy to GreedyMemoryPlanner (largest first, lowest offset); TFLM's
# own answer is the placement written beside the capture.
PRODUCTION = ("size/first-fit",)
# what TFLM calls the planned, non-persistent part of its arena; also the capture's range
PLAN = "head"
ALLOCATOR = Allocator(TOOL, PLAN, PRODUCTION)


def request_id(buffer: Buffer) -> str:
    return f"{buffer.subgraph}:{buffer.tensor.index}"


def make_capture(
    name: str, buffers: Sequence[Buffer], source: str, capacity: int | None = None
) -> tuple[Capture, Placement]:
    """The capture of the planned buffers, and TFLM's placement of them."""
    offsets = greedy_offsets(buffers)
    top = head(buffers, offsets)
    shift = 1 if any(b.first < 0 for b in buffers) else 0
    requests = tuple(
        Request(
            id=request_id(b),
            size=b.size,
            start=b.first + shift,
            end=b.last + 1 + shift,
            alignment=ALIGNMENT,
            label=_label(b),
            source=_maker(b),
            name=short_name(b.tensor.name),
        )
        for b in buffers
    )
    capture = ALLOCATOR.capture(name, requests, top, source, least=ALIGNMENT, capacity=capacity)
    placed = {request_id(b): o for b, o in zip(buffers, offsets, strict=True)}
    return capture, Placement(name, placed)


def _maker(buffer: Buffer) -> str:
    """The operator that makes the tensor (its source: what diagnose groups by)."""
    where = f"subgraph {buffer.subgraph} " if buffer.subgraph else ""
    if buffer.maker is None:
        return f"{where}input"
    return f"{where}op {buffer.maker.index} {buffer.maker.code}"


def short_name(tensor: str) -> str | None:
    """A tensor's name short enough to write on its box in a memory map: the first of
    the names TFLM's converter fused with ``;``, without the model's own scope
    (``model_1/``), the middle of a deeper path elided: ``stream_10/…/ReadVariableOp``.
    None for a tensor without a name (the map then writes its id)."""
    parts = [p for p in tensor.split(";", 1)[0].split("/") if p]
    if len(parts) >= 3:
        parts = parts[1:]
    if len(parts) > 2:
        parts = [parts[0], "…", parts[-1]]
    return "/".join(parts) or None


def _label(buffer: Buffer) -> str:
    tensor = buffer.tensor
    shape = "x".join(str(d) for d in tensor.shape) or "scalar"
    return f"{tensor.name} ({_maker(buffer)}, {tensor.dtype} {shape})"
