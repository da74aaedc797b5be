"""tilefit's plan into a TFLM model: refereed on the model's own capture, then written.

Nothing is written unless the referee accepts every offset on the capture
the model itself makes (a placement of another model, or one that puts two
live tensors on one byte, is refused). With the runtime, both models run on
the same inputs, and the export stands only if every output is equal bit for
bit and the interpreter reserves no more than the plan's top beside what it
reserved for TFLM's own plan (scratch buffers are planned around the plan).
"""

from __future__ import annotations

from pathlib import Path

from tilefit.model.errors import InputError
from tilefit.model.placement import Placement, placement_top
from tilefit.toolchains.base import Exported, RuntimeCheck, Sizes
from tilefit.toolchains.tflm import TOOLCHAIN, read_bytes
from tilefit.toolchains.tflm.arena import planned
from tilefit.toolchains.tflm.capture import make_capture
from tilefit.toolchains.tflm.graph import read_graph
from tilefit.toolchains.tflm.offline import check_plan, plan_words, with_plan
from tilefit.verdicts.watch import QUIET, Watch

INVOCATIONS = 100  # a streaming model's state builds up over many


def export_plan(
    model: Path, placement: Placement, run: bool = True, watch: Watch = QUIET
) -> Exported:
    """The model with ``placement`` as its offline plan; InputError when it may not be.
    ``watch`` hears each run of TFLM's interpreter (seconds each on a large model)."""
    where = str(model)
    data = read_bytes(model)
    graph = read_graph(data, where)
    buffers = planned(graph, where)
    if not buffers:
        raise InputError("", "TFLM plans no tensor in this model's arena: nothing to export", where)
    capture, own = make_capture(model.stem, buffers, model.name)
    TOOLCHAIN.accept(capture, placement, model.name)
    top = placement_top(capture, placement.offsets)
    words = plan_words(graph, buffers, placement.offsets)
    written = with_plan(data, words, where)
    if check_plan(written, where) != tuple(words[3:]):  # the writer's own word, read back
        raise InputError(
            "", "the model written does not carry the plan given: nothing written", where
        )
    before = placement_top(capture, own.offsets)
    checked = _run_both(data, written, where, max(before, top), watch) if run else None
    return Exported(written, before, top, len(buffers), checked)


def _run_both(
    data: bytes, written: bytes, where: str, head: int, watch: Watch = QUIET
) -> RuntimeCheck:
    from tilefit.toolchains.tflm.runtime import run_model

    watch.stage(f"TFLM's interpreter: the model with its own plan, {INVOCATIONS} invocations")
    try:
        own = run_model(data, where, invocations=INVOCATIONS, head=head)
    except InputError as refused:  # it would not even load the model: say what still works
        rule = f"{refused.rule}: --no-run writes the plan the referee accepts"
        raise InputError(refused.place, rule, refused.source) from None
    if own.refused is not None:
        raise InputError(
            "",
            f"TFLM's interpreter cannot run the model, so the outputs cannot be compared "
            f"({own.refused}): --no-run writes the plan the referee accepts",
            where,
        )
    watch.stage(f"TFLM's interpreter: the model with this plan, {INVOCATIONS} invocations")
    ours = run_model(written, where, invocations=INVOCATIONS, head=head)
    return RuntimeCheck(
        Sizes(own.head, ours.head),
        Sizes(own.total, ours.total),
        INVOCATIONS,
        own.same_outputs(ours),
        own.varies,
    )
