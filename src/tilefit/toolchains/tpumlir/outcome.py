"""What became of each attempt's layer group: the slices TPU-MLIR placed it at in the end.

When ``assignLmemAddr`` fails, the layer-group search cuts the same group (the same ops)
into more slices and calls it again, until one attempt places it or the search gives the
group up. The slices a group **ended with** are those of the first attempt after the
failed one that placed the same group (the same ops, the same span in the function); a
group never placed after it ended with none (given up: its ops went into other groups or
ran as global ops). A failed attempt's **slices cost** is how many more slices the group
ended with than the attempt tried (``ended.total - tried.total``): what TPU-MLIR paid
for that failure, in slices, where a placement existed (fragmentation).

An attempt whose timestep table the trace never printed, but whose plan is a group's of
the ``*_final.mlir`` (the same slices, the same addresses), runs on that group's table
(``with_plan_tables``): TPU-MLIR rebuilt the table without printing it.
"""

from __future__ import annotations

from collections.abc import Sequence

from tilefit.toolchains.tpumlir.attempt import Attempt
from tilefit.toolchains.tpumlir.final import Group
from tilefit.toolchains.tpumlir.slices import Slices
from tilefit.toolchains.tpumlir.trace import on_table


def made(attempt: Attempt, group: Group) -> bool:
    """Whether the attempt made the group's plan: placed, the same slices and addresses."""
    return attempt.success and attempt.slices == group.slices and attempt.plan() == group.plan()


def with_plan_tables(attempts: Sequence[Attempt], groups: Sequence[Group]) -> tuple[Attempt, ...]:
    """The attempts, each without a printed table run on its plan's table where it made
    one of ``groups``' plans (the others as they are)."""
    return tuple(_with_plan_table(a, groups) for a in attempts)


def _with_plan_table(attempt: Attempt, groups: Sequence[Group]) -> Attempt:
    if attempt.table is not None:
        return attempt
    plan = next((g for g in groups if made(attempt, g)), None)
    return attempt if plan is None else on_table(attempt, plan.table())


def group_ops(attempt: Attempt) -> tuple[str, ...] | None:
    """The attempt's group's ops by TPU-MLIR's names (None: the trace does not show it)."""
    return None if attempt.group is None else tuple(op.name for op in attempt.group.ops)


def ended_slices(attempts: Sequence[Attempt]) -> tuple[Slices | None, ...]:
    """For each attempt, the slices its group ended with (module docstring): its own where
    it placed the group, else the next attempt's that placed the same group, else None."""
    ended: list[Slices | None] = []
    for i, attempt in enumerate(attempts):
        if attempt.success:
            ended.append(attempt.slices)
            continue
        key = _group_key(attempt)
        later = (
            a for a in attempts[i + 1 :] if a.success and key is not None and _group_key(a) == key
        )
        placed = next(later, None)
        ended.append(None if placed is None else placed.slices)
    return tuple(ended)


def slices_cost(tried: Slices, ended: Slices | None) -> int | None:
    """How many more slices the group ended with than ``tried`` (None: given up)."""
    return None if ended is None else ended.total - tried.total


def _group_key(attempt: Attempt) -> tuple[int, int, tuple[str, ...]] | None:
    if attempt.group is None:
        return None
    return (*attempt.group.key, tuple(op.name for op in attempt.group.ops))
