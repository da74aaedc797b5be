"""TensorFlow Lite for Microcontrollers: a model's arena plan in, and tilefit's plan out.

- ``schema``: tflite-micro's own flatbuffer schema (the ``tflm`` extra);
- ``graph``: a ``.tflite`` model as plain data;
- ``arena``: the tensors TFLM plans in its arena's head, and their lifetimes;
- ``greedy``: TFLM's GreedyMemoryPlanner, reproduced offset for offset;
- ``capture``: those tensors as a capture, TFLM's plan as its placement;
- ``runtime``: TFLM's interpreter, run in a child process (head, tail, outputs);
- ``offline``: a placement written into the model as its offline plan.

docs/tflm.md says what each rule rests on in tflite-micro's code.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tilefit.model.errors import InputError
from tilefit.model.placement import Placement
from tilefit.toolchains.base import (
    Exported,
    ExportOptions,
    Imported,
    ImportOptions,
    Reading,
    Skipped,
    Toolchain,
    files_named,
)
from tilefit.toolchains.tflm.arena import ALIGNMENT, planned
from tilefit.toolchains.tflm.capture import ALLOCATOR, make_capture
from tilefit.toolchains.tflm.graph import Graph, read_graph

SUFFIX = ".tflite"
# Operators whose TFLM kernels may ask for scratch buffers in the arena at run time
# (RequestScratchBufferInArena in the reference kernels; CMSIS-NN and others ask more).
SCRATCH = frozenset(
    {
        "ADD_N",
        "CONV_2D",
        "DEPTHWISE_CONV_2D",
        "DETECTION_POSTPROCESS",
        "FULLY_CONNECTED",
        "MEAN",
        "MIRROR_PAD",
        "REDUCE_MAX",
        "REDUCE_MIN",
        "REDUCE_PROD",
        "SUM",
        "SVDF",
        "TRANSPOSE_CONV",
        "UNIDIRECTIONAL_SEQUENCE_LSTM",
    }
)


def model_files(paths: Sequence[str]) -> list[Path]:
    """The ``.tflite`` files the paths name (folders searched recursively), each once."""
    return files_named(paths, SUFFIX)


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise InputError("", f"cannot read: {error.strerror}", str(path)) from None


def read_models(paths: Sequence[str], options: ImportOptions) -> Reading:
    """Every model the paths name, as a capture of its head with TFLM's plan beside it."""
    if options.alignment is not None and options.alignment != ALIGNMENT:
        raise InputError("--alignment", f"TFLM aligns every offset in its arena to {ALIGNMENT}")
    imported: list[Imported] = []
    skipped: list[Skipped] = []
    for path in model_files(paths):
        item = read_model(path, options.capacity)
        if item is None:
            skipped.append(Skipped(str(path), "no tensor in the arena's head"))
        else:
            imported.append(item)
    return Reading(imported, skipped)


def read_model(path: Path, capacity: int | None = None, confirm: bool = True) -> Imported | None:
    """One model's head as a capture (None: TFLM plans nothing in it).

    ``capacity`` is the whole ``tensor_arena_size`` to ask about (an MCU's
    budget for the arena): the capture's memory is what is left of it beside
    the arena's tail, as TFLM's interpreter reports the tail.
    """
    from tilefit.toolchains.tflm.runtime import Run, run_model

    where = str(path)
    data = read_bytes(path)
    graph = read_graph(data, where)
    buffers = planned(graph, where)
    if not buffers:
        return None
    notes: list[str] = []
    if graph.offline is not None:
        notes.append("the model carries an offline plan: TFLM's plan keeps its offsets")
    ran: Run | None = None
    if confirm or capacity is not None:
        try:
            ran = run_model(data, where, head=sum(b.size for b in buffers))
        except InputError as error:
            if capacity is not None:
                raise InputError(
                    "--capacity", f"needs the arena's tail from TFLM's interpreter: {error.rule}"
                ) from None
            notes.append(f"{error.rule}: its head is not confirmed")
    room = None if ran is None or capacity is None else _head_room(ran.tail, capacity)
    capture, placement = make_capture(path.stem, buffers, path.name, room)
    assert capture.origin is not None
    if ran is not None:
        notes += _confirmed(graph, capture.origin.heap, ran.head)
        if ran.refused is not None:
            notes.append(f"TFLM's interpreter plans its arena but cannot run it: {ran.refused}")
    if ran is not None and capacity is not None:
        notes.append(
            f"asks about an arena of {capacity:,} B: {ran.tail:,} B of it is TFLM's tail "
            f"(persistent), {room:,} B is left for the head"
        )
    return Imported(capture, placement, where, len(buffers), tuple(notes))


def _head_room(tail: int, capacity: int) -> int:
    """What an arena of ``capacity`` bytes leaves for the head beside TFLM's tail."""
    if capacity <= tail:
        raise InputError(
            "--capacity",
            f"{capacity:,} B holds not even the arena's tail ({tail:,} B, persistent: "
            "no plan changes it)",
        )
    return capacity - tail


def _confirmed(graph: Graph, top: int, head: int) -> list[str]:
    """Nothing when the interpreter's head is the plan's top; else what differs, and why."""
    if head == top:
        return []
    if head < top:
        return [
            f"TFLM's interpreter reports a head of {head:,} B, below the {top:,} B of the plan "
            "reproduced here: this model is planned in a way tilefit does not reproduce, and "
            "its plan is not confirmed"
        ]
    ops = sorted({op.code for s in graph.subgraphs for op in s.operators} & SCRATCH)
    which = ", ".join(ops) if ops else "none known"
    return [
        f"TFLM's interpreter reports a head of {head:,} B, the plan of the tensors {top:,} B: "
        f"the rest is scratch buffers its kernels ask for at run time (operators that may: "
        f"{which}), which the import cannot see"
    ]


def _export(model: Path, placements: Sequence[Placement], options: ExportOptions) -> Exported:
    from tilefit.toolchains.tflm.export import export_plan

    if len(placements) != 1:
        raise InputError("", "a TFLM model takes one placement (its arena's head)", str(model))
    if options.flags or options.inputs is not None:
        raise InputError("", "TFLM's export takes no --flag and no --inputs", str(model))
    return export_plan(model, placements[0], options.run, options.watch)


def _claims(path: Path) -> bool:
    return path.suffix.lower() == SUFFIX


TOOLCHAIN = Toolchain(
    name="tflm",
    tool=ALLOCATOR.tool,
    summary="TensorFlow Lite for Microcontrollers: a .tflite model's arena head "
    "(needs the tflm extra)",
    plan=ALLOCATOR.plan,
    read=read_models,
    claims=_claims,
    export=_export,
    adopt="export it: tilefit export tflm MODEL.tflite {placement} -o OUT.tflite",
    unit="tensor",
    whole="model",
)

__all__ = ["SUFFIX", "TOOLCHAIN", "read_model", "read_models"]
