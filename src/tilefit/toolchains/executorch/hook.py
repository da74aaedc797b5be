"""tilefit as ExecuTorch's memory planning algorithm (needs the ``executorch`` extra).

``MemoryPlanningPass(memory_planning_algo=planner())`` calls the planner as
it calls its own: ``algo(alignment, specs, graph_module, graph_signature,
extra_padding)``, which must set each spec's ``mem_id``, ``mem_offset`` and
``mem_obj_id`` and return the arena sizes. The planner:

1. runs ExecuTorch's own ``greedy`` on the specs (it also rounds each
   spec's size to the alignment, as ExecuTorch's suite does);
2. reads every spec into a ``specs.Spec`` named after its FX node, with
   greedy's offset;
3. decides every arena with tilefit (``plan.plan_program``): the least top
   found, never above greedy's, refereed; an arena tilefit cannot honour
   keeps greedy's plan with one warning line on stderr naming the node;
4. sets the three fields on every spec (aliases and zero-byte ones
   included) and returns the sizes, computed as ExecuTorch computes them
   (reserved bytes, plan, ``extra_padding``). If its sizes for greedy's plan
   are not greedy's own, the whole call keeps greedy's plan (and says so).

With ``banks`` it also says, for each arena and bank, whether the arena fits
(``banks.bank_verdicts``); with ``captures`` it writes each call's specs
(``NAME.executorch.json``, what ``tilefit import executorch`` reads) and
every arena's capture with greedy's placement and tilefit's beside it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tilefit.toolchains.executorch.banks import BankVerdict, bank_verdicts
from tilefit.toolchains.executorch.capture import arena_name
from tilefit.toolchains.executorch.plan import (
    GREEDY,
    TILEFIT,
    ArenaPlan,
    ProgramPlan,
    memory_objects,
    plan_placement,
    plan_program,
)
from tilefit.toolchains.executorch.specs import SUFFIX, Program, Spec, program_text


@dataclass(frozen=True)
class Report:
    """One call of the planner: the program read, the plan made, the banks' verdicts."""

    program: Program
    plan: ProgramPlan
    banks: tuple[BankVerdict, ...] = ()
    greedy_sizes: tuple[int, ...] = ()  # ExecuTorch's greedy, as it returned them
    sizes: tuple[int, ...] = ()  # what the planner returned
    warnings: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        out = [f"{self.program.name}: {len(self.program.specs)} specs"]
        for arena in self.plan.arenas:
            out.append("  " + arena_line(arena, self.program.extra_padding))
        for verdict in self.banks:
            out += ["  " + line for line in verdict.lines()]
        out += ["  " + w for w in self.warnings]
        return out


def arena_line(arena: ArenaPlan, extra_padding: int) -> str:
    """One arena's outcome in one line."""
    whose = "tilefit's" if arena.source == TILEFIT else "greedy's"
    proof = "proven minimal" if arena.proven else "not proven minimal"
    saved = (
        f", {arena.saved:,} B ({100.0 * arena.saved / arena.greedy_top:.1f}%) less"
        if arena.saved and arena.greedy_top
        else ""
    )
    extra = arena.reserved + extra_padding
    whole = f" (arena {arena.reserved + arena.top + extra_padding:,} B)" if extra else ""
    return (
        f"arena {arena.mem_id}: {arena.requests} tensors of {arena.specs} specs; greedy "
        f"{arena.greedy_top:,} B, live bound {arena.lower_bound:,} B; {whose} plan "
        f"{arena.top:,} B{whole}{saved}, {proof} ({arena.seconds:.1f} s)"
    )


def stopped_lines(plan: ProgramPlan, time_limit: float) -> list[str]:
    """One line for each arena whose search the time limit stopped before it proved its plan
    the least (an arena whose greedy plan is kept for a reason has its own warning)."""
    return [
        f"tilefit: arena {a.mem_id}: {a.top:,} B, not proven minimal: its search stopped at its "
        f"time limit ({time_limit:g} s); planner(time_limit=SECONDS) gives it more"
        for a in plan.arenas
        if not a.proven and a.warning is None
    ]


@dataclass
class Planner:
    """ExecuTorch's ``memory_planning_algo``, deciding each arena with tilefit."""

    time_limit: float = 10.0  # seconds of search per arena
    banks: tuple[int, ...] | None = None  # capacities of a part's memories, fastest first
    captures: Path | None = None  # where to write every call's specs and arenas
    name: str = "program"
    workers: int | None = None  # the search's processes (None: up to 2)
    reports: list[Report] = field(default_factory=list)

    # MemoryPlanningPass names an algorithm by its __name__ (it verifies only "greedy")
    __name__ = "tilefit"

    def __call__(
        self,
        alignment: int,
        specs: Any,
        graph_module: Any,
        graph_signature: Any,
        extra_padding: int = 0,
    ) -> list[int]:
        from executorch.exir.memory_planning import greedy

        given = list(specs)
        found = greedy(alignment, given, graph_module, graph_signature, extra_padding)
        name = self.name if not self.reports else f"{self.name}-{len(self.reports)}"
        program = read_specs(
            name, alignment, extra_padding, given, found, graph_module, graph_signature
        )
        greedy_sizes = [int(v) for v in found.bufsizes]
        trouble: str | None = None
        try:
            plan = plan_program(program, self.time_limit, self.workers)
            if plan.sizes(GREEDY) != greedy_sizes:
                trouble = (
                    f"its arena sizes {greedy_sizes} are not the {plan.sizes(GREEDY)} tilefit "
                    "reads from its offsets"
                )
        except Exception as error:  # tilefit's bug must not cost the export: greedy's stands
            plan = ProgramPlan(program, ())
            trouble = f"internal error ({type(error).__name__}: {error}); please report it"
        warnings = [*plan.warnings, *stopped_lines(plan, self.time_limit)]
        if trouble is not None:
            warnings = [f"tilefit: {name} keeps ExecuTorch's greedy plan: {trouble}"]
            sizes = _write_greedy(given, found)
        else:
            sizes = _write(given, program, plan, found)
        for line in warnings:
            print(line, file=sys.stderr)
        verdicts = tuple(bank_verdicts(plan, self.banks, self.time_limit)) if self.banks else ()
        report = Report(program, plan, verdicts, tuple(greedy_sizes), tuple(sizes), tuple(warnings))
        self.reports.append(report)
        if self.captures is not None:
            write_captures(report, self.captures)
        return sizes

    def lines(self) -> list[str]:
        return [line for report in self.reports for line in report.lines()]


def planner(
    time_limit: float = 10.0,
    banks: Sequence[int] | None = None,
    captures: str | Path | None = None,
    name: str = "program",
    workers: int | None = None,
) -> Planner:
    """An algorithm for ``MemoryPlanningPass(memory_planning_algo=...)``: every arena decided
    by tilefit (``time_limit`` seconds of search each), never larger than ExecuTorch's greedy,
    refereed; with ``banks`` (capacities, fastest first) a verdict per arena and bank; with
    ``captures`` a folder for each call's specs, captures and placements."""
    return Planner(
        time_limit=time_limit,
        banks=None if banks is None else tuple(int(b) for b in banks),
        captures=None if captures is None else Path(captures),
        name=name,
        workers=workers,
    )


def read_specs(
    name: str,
    alignment: int,
    extra_padding: int,
    specs: Sequence[Any],
    greedy: Any,
    graph_module: Any,
    graph_signature: Any,
) -> Program:
    """ExecuTorch's TensorSpecs as a ``Program``, each named after its FX node, with greedy's
    offsets; ``problem`` set on each that tilefit cannot honour."""
    nodes = list(graph_module.graph.nodes)
    named = _node_names(nodes, graph_signature)
    ids = {id(s): named.get(id(s), (f"spec{k}", "")) for k, s in enumerate(specs)}
    taken: dict[str, int] = {}
    for key, (spec_id, op) in list(ids.items()):
        count = taken.get(spec_id, 0)
        taken[spec_id] = count + 1
        if count:
            ids[key] = (f"{spec_id}#{count}", op)
    read: list[Spec] = []
    for spec in specs:
        spec_id, op = ids[id(spec)]
        result = greedy.spec_dict.get(spec)
        read.append(_spec(spec, spec_id, op, ids, result))
    reserved = getattr(graph_module, "input_mem_buffer_sizes", None) or []
    return Program(
        name=name,
        alignment=alignment,
        extra_padding=extra_padding,
        specs=tuple(read),
        reserved={k: int(v) for k, v in enumerate(reserved) if v},
        node_names=tuple(n.name for n in nodes),
    )


def _spec(spec: Any, spec_id: str, op: str, ids: dict[int, tuple[str, str]], result: Any) -> Spec:
    from executorch.exir.schema import TensorShapeDynamism

    problem: str | None = None
    shape = list(getattr(spec, "shape", []))
    size = spec.allocated_memory
    life = list(spec.lifetime)
    if type(spec).__name__ != "TensorSpec":
        problem = (
            f"a {type(spec).__name__} that shares planning fields with another (unknown aliasing)"
        )
    elif spec.shape_dynamism == TensorShapeDynamism.DYNAMIC_UNBOUND:
        problem = "a dynamic shape without an upper bound"
    elif not all(type(d) is int for d in shape) or type(size) is not int:
        problem = "a dynamic shape (its size is not known when planned)"
    elif not all(type(t) is int for t in life) or len(life) != 2:
        problem = "no lifetime"
    base = getattr(spec, "storage_base", None)
    base_id: str | None = None
    if base is not None:
        if id(base) in ids:
            base_id = ids[id(base)][0]
        elif problem is None:
            problem = "its storage_base is not among the specs planned (unknown aliasing)"
    known = type(size) is int  # a size greedy planned with (kept for its arena's size)
    timed = len(life) == 2 and all(type(t) is int for t in life)
    return Spec(
        id=spec_id,
        size=size if known else 0,
        first=life[0] if timed else 0,
        last=life[1] if timed else 0,
        mem_id=int(result.mem_id) if result is not None else (spec.mem_id or 1),
        op=op,
        shape=tuple(d for d in shape if type(d) is int) if problem is None else (),
        dtype=str(spec.dtype).removeprefix("torch."),
        base=base_id,
        base_offset=int(getattr(spec, "storage_base_offset", 0)),
        problem=problem,
        greedy=None if result is None else int(result.mem_offset),
    )


def _node_names(nodes: Sequence[Any], graph_signature: Any) -> dict[int, tuple[str, str]]:
    """Each spec's FX node (id(spec) -> (name, op)): the node that makes it, before the
    ``alloc`` that holds it, a ``getitem`` or a view of it, or the output."""
    from executorch.exir import memory
    from executorch.exir.memory_planning import _is_mutable_buffer

    best: dict[int, tuple[int, str, str]] = {}
    for node in nodes:
        raw = node.meta.get("spec")
        specs = list(raw) if isinstance(raw, (list, tuple)) else [raw]
        specs = [s for s in specs if hasattr(s, "allocated_memory")]
        if node.op == "placeholder":
            mutable = _is_mutable_buffer(node, graph_signature)
            rank, op = 0, "mutable buffer" if mutable else "input"
        elif node.op == "output":
            rank, op = 4, "output"
        elif node.target is memory.alloc:
            rank, op = 2, "alloc"
        elif node.target is memory.view:
            rank, op = 3, "view"
        else:
            target = str(node.target)
            rank, op = (1, target) if "getitem" in target else (0, target)
        for k, spec in enumerate(specs):
            name = node.name if len(specs) == 1 else f"{node.name}.{k}"
            if id(spec) not in best or rank < best[id(spec)][0]:
                best[id(spec)] = (rank, name, op)
    return {key: (name, op) for key, (_, name, op) in best.items()}


def _write(given: Sequence[Any], program: Program, plan: ProgramPlan, greedy: Any) -> list[int]:
    """mem_id, mem_offset and mem_obj_id on every spec, as the plan says."""
    by_id = {s.id: s for s in program.specs}
    spec_of = dict(zip((s.id for s in program.specs), given, strict=True))
    for arena in plan.arenas:
        if arena.source == GREEDY:
            objects = {k: greedy.spec_dict[spec_of[k]].mem_obj_id for k in arena.offsets}
        else:
            objects = memory_objects({k: by_id[k].size for k in arena.offsets}, arena.offsets)
        for spec_id, offset in arena.offsets.items():
            spec = spec_of[spec_id]
            spec.mem_id = arena.mem_id
            spec.mem_offset = offset
            spec.mem_obj_id = objects[spec_id]
    return plan.sizes()


def _write_greedy(given: Sequence[Any], greedy: Any) -> list[int]:
    for spec in given:
        result = greedy.spec_dict[spec]
        spec.mem_id, spec.mem_offset, spec.mem_obj_id = (
            result.mem_id,
            result.mem_offset,
            result.mem_obj_id,
        )
    return [int(v) for v in greedy.bufsizes]


def write_captures(report: Report, folder: Path) -> list[Path]:
    """The call's specs, and per arena its capture, greedy's placement and tilefit's."""
    from tilefit.formats.save import write_capture, write_placement, write_text_atomic

    folder.mkdir(parents=True, exist_ok=True)
    program = report.program
    written = [folder / f"{program.name}{SUFFIX}"]
    write_text_atomic(written[0], program_text(program))
    for arena in report.plan.arenas:
        held = arena.capture
        if held is None or held.capture is None:
            continue
        name = arena_name(program, arena.mem_id)
        write_capture(held.capture, folder / f"{name}.json")
        written.append(folder / f"{name}.json")
        if held.greedy is not None:
            write_placement(held.greedy, folder / f"{name}.placement.json")
            written.append(folder / f"{name}.placement.json")
        chosen = plan_placement(arena)
        if arena.source == TILEFIT and chosen is not None:
            write_placement(chosen, folder / f"{name}.tilefit.placement.json")
            written.append(folder / f"{name}.tilefit.placement.json")
    return written
