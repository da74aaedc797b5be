"""The plans of overlapping groups made to agree (``overlap``): ``replan`` searches each
group alone, so a group's plan may put a tensor TPU-MLIR loads early (or stores late) on
bytes its neighbour holds at that timestep.

Such a tensor is moved first: to the lowest address free of every other tensor of its
group (it lives all round its group's circle) and of the neighbour's tensors live then,
inside the LMEM, the group's plan refereed again. Where no address is free, the group
goes back to TPU-MLIR's own plan, and its neighbour too where that is not enough
(TPU-MLIR's own plans never clash).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tilefit.engine.lmem.freelist import align_up
from tilefit.model.placement import Placement
from tilefit.toolchains.tpumlir.overlap import Tie, ties
from tilefit.toolchains.tpumlir.plans import ModelPlans, read_plans
from tilefit.verdicts.check import check


def reconciled(final: Path, placements: Sequence[Placement]) -> list[Placement]:
    """A plan for every group of ``final`` (TPU-MLIR's where none is given), none
    clashing with a neighbour's."""
    model = read_plans(final)
    by_name = {p.capture: p for p in placements}
    given = {
        i: by_name[g.capture.name] for i, g in enumerate(model.groups) if g.capture.name in by_name
    }
    found = ties(tuple(g.group for g in model.groups))
    for tie in found:  # moved where it can go
        pair = {i: p for i, p in given.items() if i in (tie.group, tie.other)}
        if model.clashes(pair):
            moved = _moved(model, given, tie)
            if moved is not None:
                given[tie.group] = moved
    while given and model.clashes(given):  # else TPU-MLIR's own again
        for tie in found:
            for index in (tie.group, tie.other):
                pair = {i: p for i, p in given.items() if i in (tie.group, tie.other)}
                if model.clashes(pair):
                    given.pop(index, None)
    return [given.get(i, g.own) for i, g in enumerate(model.groups)]


def _moved(model: ModelPlans, given: dict[int, Placement], tie: Tie) -> Placement | None:
    """The group's plan with the tied tensor at the lowest address free of its group's
    other tensors and of the neighbour's live at the tie's timestep; None where none is
    (or the plan given is TPU-MLIR's own, which is not moved)."""
    plan = given.get(tie.group)
    if plan is None:
        return None
    group = model.groups[tie.group]
    request = group.capture.request_by_id[tie.tensor]
    taken = [
        (at, at + group.capture.request_by_id[name].size)
        for name, at in plan.offsets.items()
        if name != tie.tensor
    ]
    other = model.groups[tie.other]
    theirs = given.get(tie.other, other.own).offsets
    taken += [
        (theirs[t.name], theirs[t.name] + other.capture.request_by_id[t.name].size)
        for t in other.group.tensors()
        if tie.timestep in t.arc.steps()
    ]
    address = 0
    for start, end in sorted(taken):
        if address + request.size <= start:
            break
        address = max(address, align_up(end, request.alignment))
    if address + request.size > model.chip.lmem_bytes:
        return None
    moved = Placement(plan.capture, {**plan.offsets, tie.tensor: address})
    return moved if check(group.capture, moved).valid else None
