"""Each layer group of a ``*_final.mlir`` as TPU-MLIR built it: a cyclic capture, its
plan the placement (refereed), the bank pairs it keeps apart. What ``export`` writes
into and ``replan`` searches.

The chip's LMEM comes from ``module.chip`` (measured on each chip's cmodel, as the
allocator's trace prints it: ``lmem_spec``). Each tensor of the group
(``final.Group.tensors``: each op's output, each op's scratch buffer) is a request on
the circle of the group's timesteps, as an attempt of the trace is
(``capture.request_of``); who reads what is the group's own ops (a Load's tensor named
after what it loads, as the timestep table names it), which is all the bank question
asks (``capture.bank_conflicts``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from tilefit.model.capture import Capture, Conflict, Memory, Origin, Range
from tilefit.model.errors import InputError
from tilefit.model.lmem import Tensor
from tilefit.model.placement import Placement
from tilefit.model.words import counted
from tilefit.toolchains.base import Imported, Reading
from tilefit.toolchains.tpumlir.attempt import Chip
from tilefit.toolchains.tpumlir.capture import bank_conflicts, in_place_ends, request_of
from tilefit.toolchains.tpumlir.final import Group, groups
from tilefit.toolchains.tpumlir.graph import Graph, Node, graph_of
from tilefit.toolchains.tpumlir.mlir import ops
from tilefit.toolchains.tpumlir.overlap import clashes, early_or_late
from tilefit.toolchains.tpumlir.problem import Problem, problem_on
from tilefit.verdicts.check import check

FINAL = "_final.mlir"
# one lane's LMEM, its banks, the EU bytes every end is aligned to, the lanes (lmem_spec)
CHIPS = {
    "bm1684x": Chip(lmem_bytes=262_144, banks=16, bank_bytes=16_384, eu_bytes=64, lanes=64),
    "bm1688": Chip(lmem_bytes=131_072, banks=16, bank_bytes=8_192, eu_bytes=16, lanes=32),
    "bm1684x2": Chip(lmem_bytes=262_144, banks=16, bank_bytes=16_384, eu_bytes=32, lanes=16),
}
_CHIP = re.compile(r'\bmodule\.chip = "([^"]+)"')


@dataclass(frozen=True)
class GroupPlan:
    """One group: its capture and TPU-MLIR's plan of it, the bank pairs it keeps apart."""

    group: Group
    imported: Imported  # the capture (banks left out) and TPU-MLIR's placement
    pairs: tuple[Conflict, ...]  # the tensor pairs TPU-MLIR keeps in different banks
    writers: dict[str, tuple[int, bool]]  # request id -> (the op writing it, a scratch buffer)

    @property
    def capture(self) -> Capture:
        return self.imported.capture

    @property
    def own(self) -> Placement:
        return self.imported.placement

    @property
    def heap(self) -> int:
        """The LMEM TPU-MLIR's plan uses: its highest end (``lmem_used``)."""
        origin = self.capture.origin
        assert origin is not None  # every group's capture is made with TPU-MLIR's
        return origin.heap

    def banked(self) -> Capture:
        """The capture with each bank pair a conflict edge: a plan keeping them all."""
        return replace(self.capture, conflicts=self.pairs)

    def broken(self, placement: Placement) -> int:
        """The bank pairs ``placement`` puts in a common bank."""
        return sum(v.kind == "conflict" for v in check(self.banked(), placement).violations)


@dataclass(frozen=True)
class ModelPlans:
    """A ``*_final.mlir``: its chip and every group's plan."""

    stem: str  # the file's name without ``_final.mlir``
    chip: Chip
    groups: tuple[GroupPlan, ...]

    def clashes(self, given: Mapping[int, Placement]) -> list[str]:
        """Where the plans given (TPU-MLIR's for the other groups) put a tensor one group
        loads early or stores late on one its neighbour holds then (``overlap``)."""
        plans = {i: dict(given.get(i, g.own).offsets) for i, g in enumerate(self.groups)}
        sizes = {i: {r.id: r.size for r in g.capture.requests} for i, g in enumerate(self.groups)}
        return clashes(tuple(g.group for g in self.groups), sizes, plans)


def read_groups(path: Path) -> Reading:
    """Every group of a ``*_final.mlir``, as ``replan`` searches them."""
    return Reading([g.imported for g in read_plans(path).groups])


def read_plans(path: Path) -> ModelPlans:
    """Every group of the ``*_final.mlir`` at ``path``; bad input names the line and rule."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError("", f"cannot read: {error}", str(path)) from None
    stem = path.name.removesuffix(FINAL).removesuffix(".mlir")
    try:
        return plans_of(text, stem, str(path))
    except InputError as error:
        raise (error if error.source else error.located(str(path))) from None


def plans_of(text: str, stem: str, source: str) -> ModelPlans:
    chip = chip_of(text)
    found = groups(text)
    if not found:
        raise InputError("", "no tpu.Group in it: no LMEM plan to read (is it a *_final.mlir?)")
    weights = frozenset(op.name for op in ops(text) if op.kind == "top.Weight")
    graph = graph_of(text)  # which ops may write in place (their kind, their operands' bytes)
    return ModelPlans(
        stem, chip, tuple(_plan(g, chip, stem, source, weights, graph) for g in found)
    )


def chip_of(text: str) -> Chip:
    match = _CHIP.search(text)
    if match is None:
        raise InputError("module.chip", "missing: not a module TPU-MLIR deployed for a chip")
    chip = CHIPS.get(match.group(1))
    if chip is None:
        raise InputError(
            "module.chip",
            f"{match.group(1)}: its LMEM is not known to tilefit (known: {', '.join(CHIPS)})",
        )
    return chip


def _plan(
    group: Group, chip: Chip, stem: str, source: str, weights: frozenset[str], graph: Graph
) -> GroupPlan:
    # a tensor a neighbouring group sees is there before the first timestep or after
    # the last: live all round the circle
    early = early_or_late(group)
    tensors = tuple(
        replace(t, arc=replace(t.arc, held=True)) if t.name in early else t for t in group.tensors()
    )
    names = [t.name for t in tensors]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InputError(f"line {group.line}", f"the group writes {twice[0]} twice")
    period = group.period
    problem = _problem(group, chip, weights, graph)
    whole = tuple(
        request_of(t.name, t.size, t.arc, _class(t.scratch, t.name, weights), period,
                   chip.eu_bytes)
        for t in tensors
    )  # fmt: skip
    # an in-place output takes its input's slot (TPU-MLIR's rule); a tensor a neighbour
    # sees stays whole
    requests = tuple(
        w if w.id in early else cut
        for w, cut in zip(whole, in_place_ends(problem, whole), strict=True)
    )
    heap = max((t.addr + t.size for t in tensors), default=0)
    name = f"{stem}.group{group.index}"
    capture = Capture(
        name=name,
        horizon=period,
        memory=Memory(
            size=chip.lmem_bytes,
            ranges=(Range(0, chip.lmem_bytes, "LMEM"),),
            elements=tuple(range(0, chip.lmem_bytes, chip.bank_bytes)),
        ),
        requests=requests,
        origin=Origin("TPU-MLIR", heap, f"group {group.index}, slices {group.slices}", "LMEM"),
        period=period,
    )
    own = Placement(name, {t.name: t.addr for t in tensors})
    pairs = bank_conflicts(problem)
    broken_by = {
        frozenset(v.ids)
        for v in check(replace(capture, conflicts=pairs), own).violations
        if v.kind == "conflict"
    }
    broken = len(broken_by)
    # what replan keeps first: the pairs TPU-MLIR's own plan keeps apart (its plan passes)
    kept = tuple(p for p in pairs if frozenset((p.a, p.b)) not in broken_by)
    notes = (
        f"group {group.index} of {counted(len(group.ops), 'op')} as built, slices "
        f"{group.slices}, {counted(period, 'timestep')}: TPU-MLIR's plan uses {heap:,} B "
        "(tilefit export tpumlir writes a plan of it back)",
        f"banks, a preference: {counted(len(pairs), 'tensor pair')} TPU-MLIR keeps apart; "
        "its plan " + ("keeps them all" if broken == 0 else f"breaks {broken}"),
    )
    preferred = replace(capture, conflicts=kept)
    imported = Imported(capture, own, source, len(tensors), notes, preferred=preferred)
    writers = {t.name: (t.writer, t.scratch) for t in tensors}
    return GroupPlan(group, imported, pairs, writers)


def _class(scratch: bool, name: str, weights: frozenset[str]) -> str:
    if scratch:
        return "scratch"
    return "weight" if name in weights else "activation"


def _problem(group: Group, chip: Chip, weights: frozenset[str], graph: Graph) -> Problem:
    """The group as the bank question's input: its tensors, its table, its ops' reads."""
    tensors = tuple(
        Tensor(t.name, t.size, t.arc, scratch=t.scratch, weight=t.name in weights)
        for t in group.tensors()
    )
    by_value = {op.value: op for op in group.ops if op.value is not None}
    nodes = {
        op.name: Node(
            op.kind,
            op.name,
            tuple(by_value[v].name for v in op.operands if v in by_value),
            op.name in graph.nodes and graph.nodes[op.name].in_place,
        )
        for op in group.ops
        if op.kind != "tpu.Load" and not op.is_store
    }
    return problem_on(chip, tensors, group.table(), Graph(nodes))
