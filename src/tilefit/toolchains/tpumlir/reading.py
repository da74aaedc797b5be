"""A model's allocator trace imported: every attempt, failed ones included, a cyclic
capture; TPU-MLIR's own plan (where the attempt succeeded) as its placement.

A path is a trace (``*.lmem_assign.log``) or a folder searched for them; who reads what
comes from the ``*_tpu_opt.mlir`` beside the trace (named ``NAME_tpu_opt.mlir`` for
``NAME.lmem_assign.log``), which the bank question needs. Without it the attempts are
still imported and a note says banks could not be asked about. A ``*_final.mlir``
named gives its groups as built too (``plans``: what ``export`` writes back), after
its trace's attempts where the trace is beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from tilefit.model.capture import Capture, Origin, Range
from tilefit.model.errors import InputError
from tilefit.model.placement import Placement
from tilefit.model.words import counted
from tilefit.toolchains.base import Imported, ImportOptions, Reading, files_named
from tilefit.toolchains.tpumlir.agreement import differences
from tilefit.toolchains.tpumlir.attempt import Attempt
from tilefit.toolchains.tpumlir.capture import bank_conflicts, capture_of, placement_of
from tilefit.toolchains.tpumlir.final import read_final
from tilefit.toolchains.tpumlir.graph import Graph, read_graph
from tilefit.toolchains.tpumlir.matching import check_named, check_plan
from tilefit.toolchains.tpumlir.outcome import ended_slices, with_plan_tables
from tilefit.toolchains.tpumlir.plans import FINAL, read_groups
from tilefit.toolchains.tpumlir.problem import Problem, problem_of
from tilefit.toolchains.tpumlir.replay import replay
from tilefit.toolchains.tpumlir.slices import Slices
from tilefit.toolchains.tpumlir.trace import read_trace
from tilefit.toolchains.tpumlir.words import origin_text
from tilefit.verdicts.check import check

TRACE = ".lmem_assign.log"
_MODEL_FILES = (FINAL, "_tpu_opt.mlir")


def read_traces(paths: Sequence[str], options: ImportOptions) -> Reading:
    """Every attempt of every trace the paths name, one capture each."""
    if options.alignment is not None:
        raise InputError("--alignment", "TPU-MLIR's trace gives the chip's EU bytes: drop it")
    imported: list[Imported] = []
    for path in _traces(paths):
        found = _attempts(path)
        graph = _graph_beside(path)
        name = path.name.removesuffix(TRACE)
        ended = ended_slices(found)
        imported += [
            _imported(a, graph, name, str(path), options, e)
            for a, e in zip(found, ended, strict=True)
        ]
    for path in files_named(paths, TRACE):  # a plan named: its groups as built
        if path.name.endswith(FINAL):
            groups = read_groups(path).imported
            imported += [replace(g, capture=_asked(g.capture, options)) for g in groups]
    return Reading(imported)


def _attempts(trace: Path) -> tuple[Attempt, ...]:
    """The trace's attempts (a trace without one is bad input, said there); with the plan
    beside it (``NAME_final.mlir``, checked to be the trace's model's), each attempt whose
    table the trace never printed runs on the table of the plan it made."""
    found = read_trace(trace)
    final = _beside(trace, "_final.mlir")
    if final is None:
        return found
    groups = read_final(final)
    check_plan(final, groups, trace, found, _beside(trace, "_tpu_opt.mlir"))
    return with_plan_tables(found, groups)


def _beside(trace: Path, suffix: str) -> Path | None:
    path = trace.with_name(trace.name.removesuffix(TRACE) + suffix)
    return path if path.is_file() else None


def _traces(paths: Sequence[str]) -> list[Path]:
    """The traces: as given or found in folders; a model's other file named stands for
    the trace beside it (``NAME_final.mlir``, ``NAME_tpu_opt.mlir``: ``NAME.lmem_assign.log``;
    a final.mlir without one gives its groups alone)."""
    found: dict[Path, Path] = {}
    check_named([Path(p) for p in paths], TRACE, _MODEL_FILES[0])
    for path in files_named(paths, TRACE):
        trace = path
        for suffix in _MODEL_FILES:
            if path.name.endswith(suffix):
                trace = path.with_name(path.name.removesuffix(suffix) + TRACE)
                if not trace.is_file() and suffix == FINAL:
                    break
                if not trace.is_file():
                    raise InputError(
                        str(path),
                        f"no {trace.name} beside it: the allocator's trace is what "
                        "import reads (docs/tpumlir.md says how TPU-MLIR writes it)",
                    )
        if trace.is_file():
            found.setdefault(trace.resolve(), trace)
    return list(found.values())


def _graph_beside(trace: Path) -> Graph | None:
    opt = _beside(trace, "_tpu_opt.mlir")
    return None if opt is None else read_graph(opt)


def _imported(
    attempt: Attempt,
    graph: Graph | None,
    model: str,
    source: str,
    options: ImportOptions,
    ended: Slices | None,
) -> Imported:
    problem = problem_of(attempt, graph if graph is not None else Graph({}))
    if problem is None:
        raise InputError(
            source, f"attempt at line {attempt.line} has no timestep table: a trace cut short?"
        )
    capture = _asked(capture_of(attempt, problem, f"{model}.attempt{attempt.index}"), options)
    own = placement_of(attempt, capture)
    if own is None:  # failed: what it placed before it found no block, the rest missing
        own = Placement(capture.name, {t.name: t.addr for t in attempt.placed})
        # Its LMEM is then the chip's and the unplaced tensors' bytes above it: the
        # two-part answer says TPU-MLIR's own plan did not fit, and by how much at least.
        left = sum(r.size for r in capture.requests if r.id not in own.offsets)
        heap = max(attempt.lmem_used, attempt.chip.lmem_bytes) + left
        source_line = f"its allocator failed, {counted(len(attempt.failed), 'tensor')} unplaced"
        placed = len(attempt.placed)
        origin = Origin("TPU-MLIR", heap, source_line, "LMEM", placed)
        capture = replace(capture, origin=origin)
    placement = own
    if capture.origin is not None:  # the group in TPU-MLIR's words (words.py)
        said = f"placed, {attempt.lmem_used:,} B used"
        if not attempt.success:
            said = capture.origin.source or "its allocator failed"
        text = origin_text(attempt, ended, said)
        capture = replace(capture, origin=replace(capture.origin, source=text))
    notes = [_outcome(attempt), *_replay_departs(attempt, problem)]
    if graph is None:
        notes.append("banks not asked about: no *_tpu_opt.mlir beside the trace (who reads what)")
    else:
        notes.append(_banks(capture, placement, problem, attempt.success))
    return Imported(capture, placement, source, len(attempt.tensors), tuple(notes))


def _asked(capture: Capture, options: ImportOptions) -> Capture:
    """The capture in the LMEM ``--capacity`` asks about, where it does."""
    size = options.capacity
    if size is None:
        return capture
    return replace(capture, memory=replace(capture.memory, size=size, ranges=(Range(0, size),)))


def _replay_departs(attempt: Attempt, problem: Problem) -> list[str]:
    """A note where TPU-MLIR's allocator replayed from the capture's inputs (its
    production) departs from the trace, saying where; none where it reproduces it."""
    found = differences(attempt, replay(problem))
    if not found:
        return []
    return [f"the capture's production, TPU-MLIR's allocator replayed, departs: {found[0]}"]


def _outcome(attempt: Attempt) -> str:
    group = f"group of {counted(len(attempt.group.ops), 'op')}" if attempt.group else "group"
    if attempt.success:
        return f"{group}, slices {attempt.slices}: TPU-MLIR placed it, {attempt.lmem_used:,} B used"
    lost = attempt.rounds[-1][-1].name if attempt.rounds else "?"
    return (
        f"{group}, slices {attempt.slices}: TPU-MLIR's allocator FAILED "
        f"(no block for {lost}; {counted(len(attempt.failed), 'tensor')} left unplaced); "
        "tilefit diagnose says fragmentation or capacity"
    )


def _banks(capture: Capture, placement: Placement, problem: Problem, success: bool) -> str:
    """The bank pairs TPU-MLIR keeps apart and, for its plan, how many it breaks: the
    referee's conflict violations with those pairs as conflict edges."""
    pairs = bank_conflicts(problem)
    said = f"banks, a preference: {counted(len(pairs), 'tensor pair')} TPU-MLIR keeps apart"
    if not success:
        return said
    banked = replace(capture, conflicts=pairs)
    broken = sum(v.kind == "conflict" for v in check(banked, placement).violations)
    return f"{said}; its plan " + ("keeps them all" if broken == 0 else f"breaks {broken}")
