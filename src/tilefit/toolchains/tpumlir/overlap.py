"""Layer groups that overlap in time: a plan of one group ties the next's.

TPU-MLIR runs some of a group's Loads during the previous group's timesteps (the
group's ``self_up_overlap_op``, the previous group's ``other_up_overlap_op`` saying in
which timestep) and some of its Stores during the next group's (``self_down`` /
``other_down``). Such a tensor shares LMEM with the other group's tensors live at that
timestep: it must not share bytes with any of them. Measured on conv_c16_s128 for
bm1688: a refereed plan of the second group putting its early-loaded weight on a tensor
the first group still held ran DIFFERENT on the simulator. Each group's capture keeps
such a tensor live all round its own circle (it is there before the group's first
timestep, or after its last); ``clashes`` checks the rest across the two plans.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tilefit.toolchains.tpumlir.final import Group


@dataclass(frozen=True, slots=True)
class Tie:
    """A tensor of group ``group`` in LMEM during timestep ``timestep`` of group ``other``."""

    group: int
    tensor: str
    other: int
    timestep: int


def ties(groups: tuple[Group, ...]) -> tuple[Tie, ...]:
    """Every tensor a neighbouring group's timestep sees, from the overlap lists."""
    found = []
    for k, group in enumerate(groups):
        for timestep, ids in group.overlap.next_up:
            if k + 1 < len(groups):
                found += [Tie(k + 1, n, k, timestep) for n in _written(groups[k + 1], ids)]
        for timestep, ids in group.overlap.previous_down:
            if k > 0:
                found += [Tie(k - 1, n, k, timestep) for n in _written(groups[k - 1], ids)]
    return tuple(found)


def early_or_late(group: Group) -> frozenset[str]:
    """The tensors of ``group`` in LMEM while a neighbour runs: loaded before its first
    timestep or stored after its last."""
    return frozenset(_written(group, group.overlap.up + group.overlap.down))


def _written(group: Group, ids: tuple[int, ...]) -> list[str]:
    """The tensor each op writes (a Load's), or stores (a Store's)."""
    by_id = {op.id: op for op in group.ops}
    by_value = {op.value: op for op in group.ops if op.value is not None}
    names = []
    for i in ids:
        op = by_id.get(i)
        if op is not None and op.is_store:
            stored = by_value.get(op.operands[0]) if op.operands else None
            op = stored
        if op is not None:
            names.append(op.name)
    return names


def clashes(
    groups: tuple[Group, ...],
    sizes: Mapping[int, Mapping[str, int]],
    plans: Mapping[int, Mapping[str, int]],
) -> list[str]:
    """Each tie whose tensor shares bytes with one the other group holds at that
    timestep, in words (``sizes`` and ``plans``: bytes and addresses by group, tensor)."""
    found = []
    for tie in ties(groups):
        start = plans[tie.group].get(tie.tensor)
        if start is None:
            continue
        end = start + sizes[tie.group][tie.tensor]
        for tensor in groups[tie.other].tensors():
            if tie.timestep not in tensor.arc.steps():
                continue
            at = plans[tie.other][tensor.name]
            if at < end and start < at + sizes[tie.other][tensor.name]:
                found.append(
                    f"group {tie.group}'s {tie.tensor} is in LMEM during group {tie.other}'s "
                    f"timestep {tie.timestep} (TPU-MLIR overlaps the two groups), where "
                    f"{tensor.name} holds bytes it shares"
                )
    return found
