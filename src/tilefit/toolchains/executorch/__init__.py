"""ExecuTorch: tilefit as the memory planner of PyTorch's edge runtime, and its arenas as captures.

- ``specs``: the TensorSpecs ExecuTorch's memory planning pass hands an
  algorithm, as plain data (``Spec``, ``Program``), and ``NAME.executorch.json``;
- ``capture``: one arena (``mem_id``) as a capture, greedy's plan as its placement;
- ``plan``: every arena decided by tilefit's search, never above greedy's, refereed;
- ``banks``: a part's memories, fastest first: fits, fragmentation or capacity;
- ``hook``: the planner ``MemoryPlanningPass(memory_planning_algo=planner())``
  takes (the ``executorch`` extra; the only module that imports torch).

``tilefit import executorch NAME.executorch.json`` reads what the planner's
``captures=DIR`` option wrote: a capture per arena with greedy's placement.
docs/executorch.md says what each rule rests on in ExecuTorch's code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from tilefit.model.edits import with_capacity
from tilefit.model.errors import InputError
from tilefit.toolchains.base import (
    Imported,
    ImportOptions,
    Reading,
    Skipped,
    Toolchain,
    files_named,
)
from tilefit.toolchains.executorch.capture import ALLOCATOR, arena_capture
from tilefit.toolchains.executorch.specs import SUFFIX, Program, by_arena, read_program

if TYPE_CHECKING:
    from tilefit.toolchains.executorch.hook import Planner


def planner(
    time_limit: float = 10.0,
    banks: Sequence[int] | None = None,
    captures: str | Path | None = None,
    name: str = "program",
    workers: int | None = None,
) -> Planner:
    """ExecuTorch's ``memory_planning_algo``, deciding every arena with tilefit
    (``tilefit.toolchains.executorch.hook.planner``)."""
    from tilefit.toolchains.executorch.hook import planner as make

    return make(time_limit, banks, captures, name, workers)


def spec_files(paths: Sequence[str]) -> list[Path]:
    """The ``.executorch.json`` files the paths name (folders searched recursively), each once."""
    return files_named(paths, SUFFIX)


def read_programs(paths: Sequence[str], options: ImportOptions) -> Reading:
    """Every arena of every program as a capture, with ExecuTorch's greedy plan beside it."""
    imported: list[Imported] = []
    skipped: list[Skipped] = []
    for path in spec_files(paths):
        program = read_program(path)
        if options.alignment is not None and options.alignment != program.alignment:
            raise InputError(
                "--alignment", f"{program.name} was planned with alignment {program.alignment}"
            )
        found = read_arenas(program, str(path), options.capacity)
        if not found:
            skipped.append(Skipped(str(path), "no tensor holds bytes in any arena"))
        imported += found
    return Reading(imported, skipped)


def read_arenas(program: Program, source: str, capacity: int | None = None) -> list[Imported]:
    """One capture per arena holding bytes; ``capacity`` is a whole arena as ExecuTorch sizes
    it (reserved bytes, plan, ``extra_padding``): the capture gets what is left for the plan."""
    found: list[Imported] = []
    for mem_id, specs in by_arena(program.specs).items():
        arena = arena_capture(program, mem_id, specs)
        capture = arena.capture
        if capture is None:
            continue
        if arena.greedy is None:
            raise InputError("specs", f"arena {mem_id}: greedy's offsets are missing", source)
        notes: list[str] = []
        if arena.aliases:
            notes.append(f"{len(arena.aliases)} specs sit inside another's bytes (storage_base)")
        if arena.empty:
            notes.append(f"{len(arena.empty)} zero-byte specs hold nothing (offset 0)")
        if arena.problem is not None:
            notes.append(f"tilefit's planner keeps greedy's plan here: {arena.problem}")
        extra = program.reserved_in(mem_id) + program.extra_padding
        if extra:
            notes.append(
                f"the arena holds {program.reserved_in(mem_id):,} B reserved ahead of the plan "
                f"and {program.extra_padding:,} B of extra_padding beside it"
            )
        if capacity is not None:
            room = capacity - extra
            if room < 1:
                raise InputError(
                    "--capacity",
                    f"{capacity:,} B holds not even the {extra:,} B ExecuTorch adds to the plan",
                )
            capture = replace(capture, memory=with_capacity(capture.memory, room, "--capacity"))
            if extra:
                notes.append(f"asks about an arena of {capacity:,} B: {room:,} B for the plan")
        found.append(Imported(capture, arena.greedy, source, arena.specs, tuple(notes)))
    return found


def _claims(path: Path) -> bool:
    return path.name.lower().endswith(SUFFIX)


TOOLCHAIN = Toolchain(
    name="executorch",
    tool=ALLOCATOR.tool,
    summary="ExecuTorch: the arenas of a program, as tilefit's planner wrote them "
    "(NAME.executorch.json)",
    plan=ALLOCATOR.plan,
    read=read_programs,
    claims=_claims,
    adopt="plan it with tilefit's planner, MemoryPlanningPass(memory_planning_algo=planner())",
)

__all__ = ["SUFFIX", "TOOLCHAIN", "planner", "read_arenas", "read_programs"]
