"""TPU-MLIR's plan as built: every ``tpu.Group`` of a ``*_final.mlir``.

Each op inside a group carries ``ginfo = #tpu.lg<out_addr = .., out_size = ..,
buffer_addr = .., buffer_size = .., id = .., stage = .., ...>``: the address and bytes
(per lane) of the LMEM tensor it writes (a ``tpu.Load`` the tensor it loads) and of its
scratch buffer. The group's closing line carries ``flow = [-1, 5, 3, -2, ...]`` (a
negative ``-k`` opens timestep k - 1, the ids after it run in that timestep),
``swpipl_stage_num`` and ``nsecs .. wsecs`` (the slices). A ``tpu.Store``'s
``out_addr`` repeats the address of the tensor it stores.

Lifetimes: an op of stage s in timestep t runs at step s * T + t; a tensor lives from
its writer's step to its last reader's (the Store included), an arc on the circle of
T timesteps (``arcs.Arc``), live throughout when that span reaches T steps, or when it
is a weight the group holds (loaded once: TPU-MLIR's ``hold_coeff``, every top.Weight
without ``allow_split`` in a group of more than one slice).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tilefit.model.errors import InputError
from tilefit.toolchains.tpumlir.arcs import Arc
from tilefit.toolchains.tpumlir.mlir import Op, ops, value_names
from tilefit.toolchains.tpumlir.slices import Slices
from tilefit.toolchains.tpumlir.table import Layer, Timestep, Transfer

_GINFO_KEYS = ("out_addr", "out_size", "buffer_addr", "buffer_size", "id", "stage")
_INT_LIST = re.compile(r"-?\d+")


@dataclass(frozen=True, slots=True)
class GroupOp:
    """One op of a group with its LMEM plan (``ginfo``)."""

    id: int
    kind: str
    name: str  # the tensor it writes, by TPU-MLIR's name
    value: str | None  # the SSA value it defines
    operands: tuple[str, ...]  # SSA values it reads
    out_addr: int
    out_size: int
    buffer_addr: int
    buffer_size: int
    stage: int
    timestep: int
    line: int
    # a Load of a weight the group keeps in LMEM throughout (TPU-MLIR's hold_coeff: a
    # top.Weight without allow_split, in a group of more than one slice): loaded once
    held: bool = False

    @property
    def is_store(self) -> bool:
        return self.kind == "tpu.Store"


@dataclass(frozen=True, slots=True)
class Tensor:
    """One LMEM tensor of a group: where TPU-MLIR put it, its bytes, its arc."""

    name: str
    writer: int  # the id of the op that writes it (a Load for a loaded one)
    addr: int
    size: int
    arc: Arc
    scratch: bool = False  # an op's buffer, live at its own timestep


@dataclass(frozen=True, slots=True)
class Overlap:
    """Ops TPU-MLIR runs while a neighbouring group runs (``disable_group_overlap=false``):
    a next group's Loads moved up into this group's timesteps, a previous group's Stores
    moved down into them."""

    up: tuple[int, ...] = ()  # this group's ops run during the previous group
    down: tuple[int, ...] = ()  # this group's ops run during the next group
    next_up: tuple[tuple[int, tuple[int, ...]], ...] = ()  # (timestep, the next group's ids)
    previous_down: tuple[tuple[int, tuple[int, ...]], ...] = ()  # (timestep, the previous's)


@dataclass(frozen=True, slots=True)
class Group:
    """One ``tpu.Group``: its ops, its timestep table (ids per timestep), its plan."""

    index: int  # its place among the module's groups
    line: int
    ops: tuple[GroupOp, ...]
    timesteps: tuple[tuple[int, ...], ...]
    stages: int  # swpipl_stage_num
    slices: Slices
    overlap: Overlap = Overlap()

    @property
    def period(self) -> int:
        return len(self.timesteps)

    def table(self) -> tuple[Timestep, ...]:
        """The group's timestep table as the trace prints one: the ops the NPU runs in
        each timestep, the Loads and Stores the GDMA moves (held flags unknown here)."""
        by_id = {op.id: op for op in self.ops}
        by_value = {op.value: op for op in self.ops if op.value is not None}
        rows = []
        for ids in self.timesteps:
            layers, moves = [], []
            for op in (by_id[i] for i in ids if i in by_id):
                if op.kind == "tpu.Load":
                    moves.append(Transfer(False, op.name, False, ""))
                elif op.is_store:
                    stored = by_value.get(op.operands[0]) if op.operands else None
                    moves.append(Transfer(True, stored.name if stored else op.name, False, ""))
                else:
                    layers.append(Layer(op.kind, op.name))
            rows.append(Timestep(tuple(layers), tuple(moves)))
        return tuple(rows)

    def plan(self) -> dict[str, int]:
        """Each tensor's address, by name (scratch buffers left out)."""
        return {t.name: t.addr for t in self.tensors() if not t.scratch}

    def tensors(self) -> tuple[Tensor, ...]:
        """Every LMEM tensor of the group: each op's output (a Store writes none) and
        each op's scratch buffer, with its arc."""
        by_value = {op.value: op for op in self.ops if op.value is not None}
        readers: dict[int, list[GroupOp]] = {}
        for op in self.ops:
            for operand in op.operands:
                source = by_value.get(operand)
                if source is not None:
                    readers.setdefault(source.id, []).append(op)
        period = self.period
        found = []
        for op in self.ops:
            if op.is_store:
                continue
            step = op.stage * period + op.timestep
            last = max(
                (r.stage * period + r.timestep for r in readers.get(op.id, [])), default=step
            )
            span = last - step
            held = span >= period or op.held
            arc = Arc(op.timestep, (op.timestep + span) % period, period, held=held)
            found.append(Tensor(op.name, op.id, op.out_addr, op.out_size, arc))
            if op.buffer_size > 0:
                own = Arc(op.timestep, op.timestep, period)
                scratch = f"{op.name}.buffer"  # as the trace names it
                found.append(Tensor(scratch, op.id, op.buffer_addr, op.buffer_size, own, True))
        return tuple(found)


def read_final(path: Path) -> tuple[Group, ...]:
    """Every group of a ``*_final.mlir``; bad input names the line and the rule."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError("", f"cannot read: {error}", str(path)) from None
    try:
        return groups(text)
    except InputError as error:
        raise error.located(str(path)) from None


def groups(text: str) -> tuple[Group, ...]:
    lines = text.splitlines()
    all_ops = ops(text)
    names = value_names(text)
    # the weights a group may hold: every top.Weight but those TPU-MLIR may split
    weights = frozenset(
        (op.scope, op.result)
        for op in all_ops
        if op.kind == "top.Weight" and op.result and op.attribute("allow_split") is None
    )
    found: list[Group] = []
    inside: list[Op] | None = None
    opened = 0
    for op in all_ops:
        if op.kind == "tpu.Group":
            inside, opened = [], op.line
            continue
        if inside is not None:
            if op.kind == "tpu.Yield":
                close = _closing_line(lines, op.line)
                closing = lines[close - 1]
                found.append(_group(len(found), opened, inside, closing, close, names, weights))
                inside = None
            else:
                inside.append(op)
    if inside is not None:
        raise InputError(f"line {opened}", "a tpu.Group that never closes (the file is cut short)")
    return tuple(found)


def _closing_line(lines: list[str], after: int) -> int:
    for number in range(after + 1, len(lines) + 1):
        if lines[number - 1].lstrip().startswith("})"):
            return number
    raise InputError(f"line {after}", "a tpu.Group whose closing line is missing")


def _group(
    index: int,
    opened: int,
    body: list[Op],
    close: str,
    close_line: int,
    names: dict[tuple[int, str], str],
    weights: frozenset[tuple[int, str | None]],
) -> Group:
    place = f"line {close_line}"
    flow = _attribute(close, "flow", place)
    timesteps = _timesteps(flow, place)
    stamp = {op_id: t for t, ids in enumerate(timesteps) for op_id in ids}
    slices = Slices(*(int(_attribute(close, f"{d}secs", place).split(":")[0]) for d in "ncdhw"))
    members = []
    for op in body:
        info = _ginfo(op)
        if info is None:
            continue
        if info["id"] not in stamp:
            raise InputError(
                f"line {op.line}", f"op id {info['id']} is in no timestep of the group's flow"
            )
        members.append(
            GroupOp(
                id=info["id"],
                kind=op.kind,
                name=_tensor_name(op, names),
                value=op.result,
                operands=op.operands,
                out_addr=info["out_addr"],
                out_size=info["out_size"],
                buffer_addr=info["buffer_addr"],
                buffer_size=info["buffer_size"],
                stage=info["stage"],
                timestep=stamp[info["id"]],
                line=op.line,
                held=slices.total > 1
                and op.kind == "tpu.Load"
                and (op.scope, op.operands[0] if op.operands else None) in weights,
            )
        )
    _check_stores(members)
    stages = int(_attribute(close, "swpipl_stage_num", place).split(":")[0])
    return Group(index, opened, tuple(members), timesteps, stages, slices, _overlap(close, place))


def _overlap(close: str, place: str) -> Overlap:
    """The group's overlap lists (absent ones empty)."""

    def ids(key: str) -> list[int]:
        match = re.search(rf"\b{key} = \[([^\]]*)\]", close)
        return [] if match is None else [int(n) for n in _INT_LIST.findall(match.group(1))]

    def by_timestep(key: str) -> tuple[tuple[int, tuple[int, ...]], ...]:
        found: list[tuple[int, list[int]]] = []
        for n in ids(key):
            if n < 0:
                found.append((-n - 1, []))
            elif not found:
                raise InputError(place, f"the group's {key} does not open with a timestep")
            else:
                found[-1][1].append(n)
        return tuple((t, tuple(i)) for t, i in found)

    return Overlap(
        tuple(ids("self_up_overlap_op")),
        tuple(ids("self_down_overlap_op")),
        by_timestep("other_up_overlap_op"),
        by_timestep("other_down_overlap_op"),
    )


def _tensor_name(op: Op, names: dict[tuple[int, str], str]) -> str:
    """The tensor's name as the allocator's trace gives it: a Load's is the name of the
    value it loads (``w1``, not the Load's own ``load_w1``)."""
    if op.kind == "tpu.Load" and op.operands:
        return names.get((op.scope, op.operands[0]), op.name)
    return op.name


def _attribute(line: str, key: str, place: str) -> str:
    match = re.search(rf"\b{key} = (\[[^\]]*\]|[^,}}]+)", line)
    if match is None:
        raise InputError(place, f"the tpu.Group's closing line has no {key}")
    return match.group(1).strip()


def _timesteps(flow: str, place: str) -> tuple[tuple[int, ...], ...]:
    numbers = [int(n) for n in _INT_LIST.findall(flow)]
    if not numbers or numbers[0] >= 0:
        raise InputError(place, "the group's flow does not open with a timestep (-1)")
    table: list[list[int]] = []
    for n in numbers:
        if n < 0:
            if -n - 1 != len(table):
                raise InputError(place, f"the group's flow opens timestep {-n - 1} out of order")
            table.append([])
        else:
            table[-1].append(n)
    return tuple(tuple(ids) for ids in table)


def _ginfo(op: Op) -> dict[str, int] | None:
    raw = op.attribute("ginfo")
    if raw is None:
        return None
    values = {}
    for key in _GINFO_KEYS:
        match = re.search(rf"\b{key} = (-?\d+)", raw)
        if match is None:
            raise InputError(f"line {op.line}", f"a ginfo without {key}")
        values[key] = int(match.group(1))
    return values


def _check_stores(members: list[GroupOp]) -> None:
    """A Store's out_addr must repeat the address of the tensor it stores."""
    by_value = {op.value: op for op in members if op.value is not None}
    for op in members:
        if not op.is_store or not op.operands:
            continue
        stored = by_value.get(op.operands[0])
        if stored is not None and stored.out_addr != op.out_addr:
            raise InputError(
                f"line {op.line}",
                f"the tpu.Store of {stored.name} says out_addr {op.out_addr}, "
                f"the tensor is at {stored.out_addr}",
            )
