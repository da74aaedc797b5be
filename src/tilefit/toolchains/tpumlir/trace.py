"""TPU-MLIR's allocator trace (``lmem_assign.log``): every allocation attempt, read.

The layer-group pass run again with TPU-MLIR's debugger on (``pipeline.trace``) prints,
for each group it tries (``lg_info``: its ops) and each timestep table it builds, every
call of its allocator ``assignLmemAddr``: the chip's LMEM (``step = lmem_spec``:
``lmem_bytes``, ``lmem_banks``, ``lmem_bank_bytes``, ``lmem_eu_bytes``), each round's
candidates (``get_candidate_allocation``: the block each tensor would take, in the
round's order), each tensor placed (``dump_lmem_assign_result``, ``status = success``,
in the order placed) or left when the attempt failed (``status = failed``, ``addr =
-1``), and a closing line (``assignLmemAddr_finish``, ``tag = success|failed``).

A trace cut short or malformed is bad input naming the line and the rule.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tilefit.model.errors import InputError
from tilefit.toolchains.tpumlir.arcs import Arc
from tilefit.toolchains.tpumlir.attempt import Attempt, Candidate, Chip, Group, TensorLine
from tilefit.toolchains.tpumlir.fields import address, fields, integer, text
from tilefit.toolchains.tpumlir.slices import Slices
from tilefit.toolchains.tpumlir.table import (
    GroupOp,
    Table,
    Timestep,
    is_row,
    own_table,
    read_group_op,
    read_row,
)

_ACTION = "; action = "
_TABLE = "============= timestep optimized ============="
_GROUP = "============= lg_info ============="
_GROUP_END = "==================================="


def read_trace(path: Path) -> tuple[Attempt, ...]:
    """Every attempt of an ``lmem_assign.log``."""
    try:
        text = path.read_text(errors="replace")
    except OSError as error:
        raise InputError("", f"cannot read: {error}", str(path)) from None
    try:
        return attempts(text)
    except InputError as error:
        raise error.located(str(path)) from None


def attempts(text: str) -> tuple[Attempt, ...]:
    reader = _Reader()
    for number, raw in enumerate(text.splitlines(), start=1):
        reader.feed(number, raw)
    return reader.finish()


class _Open:
    """The attempt being read."""

    def __init__(self, line: int, chip: Chip) -> None:
        self.line = line
        self.chip = chip
        self.placed: list[TensorLine] = []
        self.failed: list[TensorLine] = []
        self.rounds: list[list[Candidate]] = []
        self.settings: tuple[Slices, bool] | None = None


class _Reader:
    """The trace line by line: groups, tables, attempts."""

    def __init__(self) -> None:
        self.found: list[Attempt] = []
        self.groups: dict[frozenset[str], Group] = {}  # the latest group of each op set
        self.group_ops: list[GroupOp] | None = None
        self.group_head: tuple[int, int, int] | None = None
        self.table: list[Timestep] | None = None
        self.table_line = 0
        self.tables: list[Table] = []  # every table so far, the latest last
        self.open: _Open | None = None

    def feed(self, number: int, raw: str) -> None:
        at = raw.find(_ACTION)
        line = raw[at:] if at > 0 else raw  # a progress bar may share the line
        if self.group_ops is not None:
            self._group_line(number, line)
        elif self.table is not None and is_row(line):
            self.table.append(read_row(line, len(self.table), f"line {number}"))
        else:
            if self.table is not None:
                self.tables.append((self.table_line, tuple(self.table)))
                self.table = None
            if line.startswith(_TABLE):
                self.table, self.table_line = [], number
            elif line.startswith(_GROUP):
                self.group_ops = []
            elif line.startswith(_ACTION + "lmem_assign;"):
                self._assign_line(number, fields(line))

    def finish(self) -> tuple[Attempt, ...]:
        if self.open is not None:
            raise InputError(
                f"line {self.open.line}",
                "the trace ends inside this attempt (no assignLmemAddr_finish: cut short)",
            )
        if not self.found:
            raise InputError(
                "", "no allocation attempt (not a trace of TPU-MLIR's lmem_assign debug lines)"
            )
        return tuple(self.found)

    def _group_line(self, number: int, line: str) -> None:
        assert self.group_ops is not None
        if line.startswith("; base_group_idx"):
            values = fields(line)
            self.group_head = (
                integer(values, "func_start_idx", number),
                integer(values, "func_end_idx", number),
                number,
            )
        elif line.startswith(_GROUP_END):
            if self.group_head is None or not self.group_ops:
                raise InputError(f"line {number}", "an lg_info block without its span or ops")
            start, end, at = self.group_head
            group = Group(start, end, tuple(self.group_ops), at)
            self.groups[frozenset(op.name for op in group.ops)] = group
            self.group_ops, self.group_head = None, None
        else:
            op = read_group_op(line)
            if op is not None:
                self.group_ops.append(op)

    def _assign_line(self, number: int, values: dict[str, str]) -> None:
        step = values.get("step", "")
        if step == "lmem_spec":
            self._begin(number, values)
            return
        if self.open is None:
            raise InputError(f"line {number}", f"an lmem_assign line ({step}) outside an attempt")
        if step == "iteration_start":
            self.open.rounds.append([])
        elif step == "get_candidate_allocation":
            if not self.open.rounds:
                raise InputError(f"line {number}", "a candidate before its round began")
            self.open.rounds[-1].append(_candidate(values, number))
        elif step == "dump_lmem_assign_result":
            self._tensor(number, values)
        elif step == "assignLmemAddr_finish":
            self._end(number, values)

    def _begin(self, number: int, values: dict[str, str]) -> None:
        if self.open is not None:
            raise InputError(
                f"line {self.open.line}", "an attempt that never finished before the next began"
            )
        chip = Chip(
            lmem_bytes=integer(values, "lmem_bytes", number),
            banks=integer(values, "lmem_banks", number),
            bank_bytes=integer(values, "lmem_bank_bytes", number),
            eu_bytes=integer(values, "lmem_eu_bytes", number),
            lanes=integer(values, "lmem_npu_num", number),
        )
        self.open = _Open(number, chip)

    def _group_of(self, table: tuple[Timestep, ...] | None) -> Group | None:
        """The latest group shown whose ops are those the table runs."""
        if table is None:
            return None
        return self.groups.get(frozenset(layer.name for row in table for layer in row.layers))

    def _tensor(self, number: int, values: dict[str, str]) -> None:
        assert self.open is not None
        place = f"line {number}"
        start = integer(values, "timestep_start", number)
        end = integer(values, "timestep_end", number)
        if min(start, end) < 0:
            raise InputError(place, f"timesteps {start}->{end} below 0")
        status = values.get("status")
        if status not in ("success", "failed"):
            raise InputError(place, f"status {status!r} is neither success nor failed")
        line = TensorLine(
            name=text(values, "op_name", number),
            kind=text(values, "lmem_type", number),
            writer=text(values, "op_type", number),
            addr=address(text(values, "addr", number), place),
            size=integer(values, "size", number),
            # the period is the table's, known once the attempt is whole (_end)
            arc=Arc(start, end, 0, held=integer(values, "hold_in_lmem", number) == 1),
            mode=text(values, "timestep_mode", number),
            line=number,
        )
        settings = (
            Slices.parse(text(values, "shape_secs", number), place),
            integer(values, "allow_bank_conflict", number) == 1,
        )
        if self.open.settings not in (None, settings):
            raise InputError(place, "shape_secs or allow_bank_conflict change within an attempt")
        self.open.settings = settings
        if (status == "success") != line.placed:
            raise InputError(place, f"a {status} tensor line with address {line.addr}")
        (self.open.placed if line.placed else self.open.failed).append(line)

    def _end(self, number: int, values: dict[str, str]) -> None:
        assert self.open is not None
        opened = self.open
        tag = values.get("tag")
        success = tag == "success"
        if tag not in ("success", "failed"):
            raise InputError(f"line {number}", f"assignLmemAddr_finish with tag {tag!r}")
        if opened.settings is None:
            raise InputError(f"line {opened.line}", "an attempt with no tensor line")
        if success == bool(opened.failed):
            raise InputError(
                f"line {number}", f"tag {tag} after {len(opened.failed)} tensors left unplaced"
            )
        if not success and integer(values, "membuf_allocate_failed", number) != len(opened.failed):
            raise InputError(
                f"line {number}", "membuf_allocate_failed differs from the tensors left"
            )
        used = "total_lmem_used" if success else "lmem_already_used"
        slices, conflict = opened.settings
        tensors = opened.placed + opened.failed
        starts = {t.name: t.arc.start for t in tensors if t.kind != "LMEM_OPERATION"}
        last = max(max(t.arc.start, t.arc.end) for t in tensors)
        table_line, table = own_table(self.tables, starts, last)
        period = len(table) if table is not None else None
        labels = _scratch_labels(opened.placed + opened.failed, table)
        placed, failed = (
            tuple(_on_circle(t, period, labels) for t in lines)
            for lines in (opened.placed, opened.failed)
        )
        rounds = tuple(
            tuple(replace(c, name=labels.get((c.name, c.kind, *c.timesteps), c.name)) for c in r)
            for r in opened.rounds
        )
        self.found.append(
            Attempt(
                index=len(self.found),
                line=opened.line,
                end_line=number,
                chip=opened.chip,
                group=self._group_of(table),
                table=table,
                table_line=table_line,
                slices=slices,
                allow_bank_conflict=conflict,
                placed=placed,
                failed=failed,
                rounds=rounds,
                success=success,
                lmem_used=integer(values, used, number),
            )
        )
        self.open = None


_Label = tuple[str, str, int, int]  # (name printed, lmem type, start, end)


def _scratch_labels(
    lines: list[TensorLine], table: tuple[Timestep, ...] | None
) -> dict[_Label, str]:
    """Each scratch buffer's name: ``OP.buffer``, OP the op of its type at its timestep."""
    labels = {}
    for t in lines:
        if t.kind != "LMEM_OPERATION":
            continue
        owner = None
        if table is not None and t.arc.start < len(table):
            owner = next((la.name for la in table[t.arc.start].layers if la.kind == t.writer), None)
        label = f"{owner}.buffer" if owner else f"{t.writer}@{t.arc.start}.buffer"
        labels[(t.name, t.kind, t.arc.start, t.arc.end)] = label
    return labels


def _on_circle(line: TensorLine, period: int | None, labels: dict[_Label, str]) -> TensorLine:
    """The tensor with its arc on the attempt's circle (without a table, the least one)
    and its scratch buffer's name."""
    arc = line.arc
    size = period if period is not None else 1 + max(arc.start, arc.end)
    name = labels.get((line.name, line.kind, arc.start, arc.end), line.name)
    return replace(line, name=name, arc=Arc(arc.start, arc.end, size, arc.held))


def _candidate(values: dict[str, str], number: int) -> Candidate:
    ends = text(values, "timestep", number).split("->")
    if len(ends) != 2 or not all(e.strip().isdigit() for e in ends):
        raise InputError(f"line {number}", "a candidate's timestep is not START->END")
    return Candidate(
        name=text(values, "op_name", number),
        kind=text(values, "op_type", number),
        timesteps=(int(ends[0]), int(ends[1])),
        addr=address(text(values, "addr", number), f"line {number}"),
        block=integer(values, "size", number),
        area=integer(values, "area", number),
        index=integer(values, "idx", number),
        line=number,
    )


def on_table(attempt: Attempt, table: tuple[Timestep, ...], line: int | None = None) -> Attempt:
    """The attempt run on a table found elsewhere (the plan's, ``final.Group.table``, for
    the attempt that made it): its arcs on that circle, its scratch buffers named after
    the ops of that table."""
    labels = _scratch_labels(list(attempt.tensors), table)
    renamed = {
        t.name: labels[key]
        for t in attempt.tensors
        if (key := (t.name, t.kind, t.arc.start, t.arc.end)) in labels
    }
    period = len(table)

    def moved(t: TensorLine) -> TensorLine:
        arc = Arc(t.arc.start, t.arc.end, period, t.arc.held)
        return replace(t, name=renamed.get(t.name, t.name), arc=arc)

    rounds = tuple(
        tuple(replace(c, name=renamed.get(c.name, c.name)) for c in r) for r in attempt.rounds
    )
    return replace(
        attempt,
        table=table,
        table_line=line,
        placed=tuple(moved(t) for t in attempt.placed),
        failed=tuple(moved(t) for t in attempt.failed),
        rounds=rounds,
    )
