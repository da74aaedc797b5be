"""A plan written into a ``*_final.mlir``'s text: each op's ``ginfo`` addresses.

Each tensor of a group is written by one op: its ``out_addr`` (a Load's for a tensor it
loads), or its ``buffer_addr`` for the op's scratch buffer. A ``tpu.Store``'s
``out_addr`` repeats the address of the tensor it stores, so it follows that tensor.
Nothing else of the text changes; ``final.groups`` reads the addresses back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tilefit.model.errors import InputError
from tilefit.model.placement import Placement
from tilefit.toolchains.tpumlir.final import groups
from tilefit.toolchains.tpumlir.plans import GroupPlan, ModelPlans

_GINFO = re.compile(r"ginfo = #tpu\.lg<[^>]*>")


def with_addresses(text: str, plans: ModelPlans, placements: Mapping[int, Placement]) -> str:
    """``text`` with each group named (by its index) placed at the placement's offsets;
    the groups not named keep TPU-MLIR's plan. No check of the plan here: the export
    referees it first."""
    lines = text.splitlines(keepends=True)
    for index, placement in placements.items():
        plan = plans.groups[index]
        for line, key, address in _edits(plan, placement):
            lines[line - 1] = _set(lines[line - 1], key, address, line)
    return "".join(lines)


def _edits(plan: GroupPlan, placement: Placement) -> list[tuple[int, str, int]]:
    """(line, ginfo key, address) for every address the placement moves."""
    out: dict[int, int] = {}  # op id -> its output's address
    scratch: dict[int, int] = {}  # op id -> its buffer's address
    for tensor, address in placement.offsets.items():
        writer, is_scratch = plan.writers[tensor]
        (scratch if is_scratch else out)[writer] = address
    by_value = {op.value: op for op in plan.group.ops if op.value is not None}
    edits = []
    for op in plan.group.ops:
        written = op.id
        if op.is_store:  # it repeats the stored tensor's address
            stored = by_value.get(op.operands[0]) if op.operands else None
            if stored is None:
                continue
            written = stored.id
        if written in out:
            edits.append((op.line, "out_addr", out[written]))
        if not op.is_store and op.id in scratch:
            edits.append((op.line, "buffer_addr", scratch[op.id]))
    return edits


def _set(line: str, key: str, address: int, number: int) -> str:
    ginfo = _GINFO.search(line)
    if ginfo is None:
        raise InputError(f"line {number}", "an op of the group without its ginfo")
    edited, done = re.subn(rf"\b{key} = -?\d+", f"{key} = {address}", ginfo.group(0), count=1)
    if done != 1:
        raise InputError(f"line {number}", f"a ginfo without {key}")
    return line[: ginfo.start()] + edited + line[ginfo.end() :]


def written_addresses(text: str, index: int) -> dict[str, int]:
    """Every tensor's address in group ``index`` of ``text`` as TPU-MLIR reads it back
    (scratch buffers included)."""
    return {t.name: t.addr for t in groups(text)[index].tensors()}
