"""A layer group's timestep table and its ops, as TPU-MLIR's trace prints them.

The table (debug type ``timestep_assign_result``, after ``timestep optimized``) is one
line a timestep: the ops the NPU runs (``C("tpu.Conv2D"), "relu4_Relu"``: the op's
type, the tensor it writes), then after ``||`` what the GDMA moves (``L("w5",
hold_in_lmem = 1)->top.Weight``: a load of ``w5``, written by a ``top.Weight``; ``S``
a store). The group (debug type ``lg_info``) is a table of its ops: index in the
function, type, the tensor each writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tilefit.model.errors import InputError

_ROW = re.compile(r"^; ts = (\d+);\s*\[(.*?)\]\s*\|\|\s*\[(.*)\]\s*$")
_LAYER = re.compile(r'C\("([^"]+)"\),\s*"([^"]*)"')
_TRANSFER = re.compile(r'([LS])\("([^"]*)",\s*hold_in_lmem = (\d)\)->([\w.]+)')
_GROUP_OP = re.compile(r"^(\d+)\s+(\d+)\s+([\w.]+)\s+(\S+)\s*$")


@dataclass(frozen=True, slots=True)
class Layer:
    """An op the NPU runs in a timestep: its type and the tensor it writes."""

    kind: str
    name: str


@dataclass(frozen=True, slots=True)
class Transfer:
    """A GDMA load or store in a timestep."""

    store: bool  # False: a load into LMEM
    name: str
    held: bool  # hold_in_lmem: loaded once, kept for the whole group
    writer: str  # the type of the op that writes the tensor (top.Weight, tpu.Conv2D)


@dataclass(frozen=True, slots=True)
class Timestep:
    layers: tuple[Layer, ...]
    transfers: tuple[Transfer, ...]


@dataclass(frozen=True, slots=True)
class GroupOp:
    """One op of a layer group tried: its place in the function, type and output."""

    index: int
    kind: str
    name: str


def read_row(line: str, expected: int, place: str) -> Timestep:
    """One row of a table; rows come in order 0, 1, ..."""
    match = _ROW.match(line)
    if match is None:
        raise InputError(place, "a timestep row that is not '; ts = N; [ ops ] || [ moves ]'")
    if int(match.group(1)) != expected:
        raise InputError(place, f"timestep {match.group(1)} where {expected} comes next")
    layers = tuple(Layer(m.group(1), m.group(2)) for m in _LAYER.finditer(match.group(2)))
    transfers = tuple(
        Transfer(m.group(1) == "S", m.group(2), m.group(3) == "1", m.group(4))
        for m in _TRANSFER.finditer(match.group(3))
    )
    return Timestep(layers, transfers)


def is_row(line: str) -> bool:
    return line.startswith("; ts = ")


def read_group_op(line: str) -> GroupOp | None:
    """A row of the ``lg_info`` op table, or None for any other line."""
    match = _GROUP_OP.match(line.strip())
    if match is None:
        return None
    return GroupOp(int(match.group(1)), match.group(3), match.group(4))


Table = tuple[int, tuple[Timestep, ...]]  # (its heading's line, its rows)


def own_table(
    tables: list[Table], starts: dict[str, int], last: int
) -> tuple[int | None, tuple[Timestep, ...] | None]:
    """The latest table printed that is an attempt's: every tensor (``starts``: name ->
    first timestep) starting where the table loads or writes it, and no other, and
    ``last`` (its latest timestep) inside it. The search prints tables of other groups
    between (and none for some attempts): None when no table printed fits."""
    for line, table in reversed(tables):
        if len(table) <= last:
            continue
        begins: dict[str, int] = {}
        for ts, row in enumerate(table):
            for layer in row.layers:
                begins.setdefault(layer.name, ts)
            for move in row.transfers:
                if not move.store:
                    begins.setdefault(move.name, ts)
        if begins == starts:
            return line, table
    return None, None
