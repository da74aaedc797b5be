"""Each ExecuTorch arena decided by tilefit: the least top found, never above greedy's.

For every arena of a ``Program``: its capture (``capture.arena_capture``),
replanned as every toolchain's plan is (``toolchains.replan``: greedy's plan
refereed on it, then tilefit's least searched in a memory of greedy's top, so
that whatever it finds is no larger). A plan the referee does not accept is
never used. The arena keeps
greedy's plan when the search finds nothing lower, when a spec cannot be
honoured, or when greedy's own plan fails the referee on the capture (then
the capture misreads the arena, and nothing built on it is trusted): each
of the last two with one warning line naming the node or the arena.

The sizes returned are ExecuTorch's: per arena, the bytes reserved ahead
of the plan, the plan's top, and ``extra_padding``
(``_compute_total_sizes`` in executorch/exir/memory_planning.py); index 0
(constants) is 0.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tilefit.bounds.deficit import bound
from tilefit.model.placement import Placement
from tilefit.toolchains.executorch.capture import ArenaCapture, arena_capture
from tilefit.toolchains.executorch.specs import Program, Spec, by_arena
from tilefit.toolchains.replan import replan

TILEFIT = "tilefit"
GREEDY = "greedy"


@dataclass(frozen=True)
class ArenaPlan:
    """One arena's plan: whose it is, its top beside greedy's and the bounds, every offset."""

    mem_id: int
    specs: int  # every spec of the arena, aliases and zero-byte ones included
    requests: int  # the specs that hold bytes of their own
    reserved: int  # bytes ExecuTorch holds ahead of the plan (control-flow submodules)
    greedy_top: int  # greedy's plan, from the arena's start after the reserved bytes
    top: int  # the plan chosen
    lower_bound: int  # the live lower bound (0 without a capture)
    aligned_bound: int  # the aligned lower bound
    proven: bool  # no plan of these tensors has a lower top
    seconds: float
    source: str  # TILEFIT or GREEDY
    offsets: Mapping[str, int]  # every spec's mem_offset, absolute in the arena
    warning: str | None = None  # one line: why greedy's plan is kept despite tilefit
    capture: ArenaCapture | None = None

    @property
    def saved(self) -> int:
        return self.greedy_top - self.top


@dataclass(frozen=True)
class ProgramPlan:
    program: Program
    arenas: tuple[ArenaPlan, ...]

    @property
    def offsets(self) -> dict[str, int]:
        return {k: v for a in self.arenas for k, v in a.offsets.items()}

    def sizes(self, which: str = TILEFIT) -> list[int]:
        """The arena sizes ExecuTorch records (``non_const_buffer_sizes``), with the plans
        chosen (``TILEFIT``) or with greedy's (``GREEDY``)."""
        if not self.arenas:
            return [0, 0]
        sizes = [0] * (max(a.mem_id for a in self.arenas) + 1)
        for a in self.arenas:
            top = a.top if which == TILEFIT else a.greedy_top
            sizes[a.mem_id] = a.reserved + top + self.program.extra_padding
        return sizes

    @property
    def warnings(self) -> list[str]:
        return [a.warning for a in self.arenas if a.warning is not None]


def plan_program(
    program: Program, time_limit: float = 10.0, workers: int | None = None
) -> ProgramPlan:
    """Every arena of ``program`` decided (``time_limit`` seconds for each arena's search)."""
    return ProgramPlan(
        program,
        tuple(
            plan_arena(program, mem_id, specs, time_limit, workers)
            for mem_id, specs in by_arena(program.specs).items()
        ),
    )


def plan_arena(
    program: Program,
    mem_id: int,
    specs: Sequence[Spec],
    time_limit: float = 10.0,
    workers: int | None = None,
) -> ArenaPlan:
    began = time.monotonic()
    arena = arena_capture(program, mem_id, specs)
    base = program.reserved_in(mem_id)
    capture = arena.capture
    if arena.problem is not None:
        return _greedy(arena, specs, base, began, f"{arena.problem}", capture is not None)
    if capture is None:  # only zero-byte tensors (and their aliases)
        offsets = _absolute({}, arena, base)
        return ArenaPlan(
            mem_id, len(specs), 0, base, 0, 0, 0, 0, True, 0.0, TILEFIT, offsets, None, arena
        )
    found = replan(capture, arena.greedy, time_limit, workers)
    if found.refused is not None:
        why = "greedy's plan fails tilefit's referee on the capture (the capture misreads it)"
        return _greedy(arena, specs, base, began, why, True)
    if found.placement is None or found.top is None:
        raise ValueError(f"arena {mem_id}: no plan found and greedy's is unknown")
    source = TILEFIT if found.tilefit else GREEDY
    offsets = _absolute(found.placement.offsets, arena, base)
    if source == GREEDY and all(s.greedy is not None for s in specs):
        offsets = {s.id: int(s.greedy) for s in specs if s.greedy is not None}  # as it was
    return ArenaPlan(
        mem_id=mem_id,
        specs=len(specs),
        requests=len(capture.requests),
        reserved=base,
        greedy_top=arena.greedy_top,
        top=found.top,
        lower_bound=found.standing.lower_bound,
        aligned_bound=found.standing.aligned_top,
        proven=found.proven,
        seconds=time.monotonic() - began,
        source=source,
        offsets=offsets,
        capture=arena,
    )


def _absolute(relative: Mapping[str, int], arena: ArenaCapture, base: int) -> dict[str, int]:
    """Every spec's mem_offset: roots where placed, aliases in their roots, zero-byte at 0."""
    offsets = {k: base + v for k, v in relative.items()}
    for spec_id in arena.empty:
        offsets[spec_id] = base
    for spec_id, alias in arena.aliases.items():
        offsets[spec_id] = offsets[alias.root] + alias.offset
    return offsets


def _greedy(
    arena: ArenaCapture, specs: Sequence[Spec], base: int, began: float, why: str, held: bool
) -> ArenaPlan:
    """Greedy's plan kept, exactly as ExecuTorch made it, with the warning line."""
    missing = [s.id for s in specs if s.greedy is None]
    if missing:
        raise ValueError(
            f"arena {arena.mem_id}: {why}; and greedy's plan of {missing[0]} is unknown"
        )
    offsets = {s.id: int(s.greedy) for s in specs if s.greedy is not None}
    top = max((offsets[s.id] + s.size - base for s in specs if s.base is None), default=0)
    top = max(top, arena.greedy_top)
    capture = arena.capture
    report = bound(capture) if capture is not None and held else None
    lower = 0 if report is None else report.lower_bound
    aligned = 0 if report is None else report.aligned.top
    warning = f"tilefit: arena {arena.mem_id} keeps ExecuTorch's greedy plan: {why}"
    return ArenaPlan(
        mem_id=arena.mem_id,
        specs=len(specs),
        requests=0 if capture is None else len(capture.requests),
        reserved=base,
        greedy_top=top,
        top=top,
        lower_bound=lower,
        aligned_bound=aligned,
        proven=report is not None and top <= max(lower, aligned),
        seconds=time.monotonic() - began,
        source=GREEDY,
        offsets=offsets,
        warning=warning,
        capture=arena,
    )


def memory_objects(sizes: Mapping[str, int], offsets: Mapping[str, int]) -> dict[str, int]:
    """A shared-object id per spec of one arena: specs whose bytes overlap share one
    (ExecuTorch's verifier asks that of ``mem_obj_id``); ids count up from 0 by address."""
    spans = sorted((offsets[k], offsets[k] + sizes[k], k) for k in offsets)
    ids: dict[str, int] = {}
    current, reach = -1, 0
    for start, end, key in spans:
        if current < 0 or start >= reach:
            current, reach = current + 1, end
        else:
            reach = max(reach, end)
        ids[key] = current
    return ids


def plan_placement(arena: ArenaPlan) -> Placement | None:
    """The chosen plan of the arena's requests, relative to the plan's start."""
    if arena.capture is None or arena.capture.capture is None:
        return None
    capture = arena.capture.capture
    return Placement(
        capture.name, {r.id: arena.offsets[r.id] - arena.reserved for r in capture.requests}
    )
