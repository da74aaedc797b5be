"""``*-buffer-assignment.txt``: XLA's allocations and the values in each.

The text is ``BufferAssignment::ToString`` (xla/service/buffer_assignment.cc):

    BufferAssignment:
    allocation 29: size 50432, preallocated-temp:
     value: <101 fusion.2 @0> (size=16384,offset=0): f32[32,128]{1,0}

An allocation's header lists its kinds after the size (``parameter N, shape
|...| at ShapeIndex {...}``, ``output shape is |...|``, ``constant``,
``thread-local``, ``maybe-live-out``, ``preallocated-temp``, ``color N``).
A value prints as ``<ID INSTRUCTION[{INDEX}][ (phi)][ @COLOR]>``, with the shape
index only where the instruction's shape is a tuple. Older XLA versions append
"Total bytes used", the values in full and the live ranges to the same file;
the allocations end at the first blank line. Every line inside them must be
understood: a line that is not is bad input, never skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tilefit.model.errors import INT_LIMIT, InputError

TEMP = "preallocated-temp"
_HEADER = "BufferAssignment:"
_ALLOCATION = re.compile(r"^allocation (\d+): size (\d+)(.*):$")
_VALUE = re.compile(
    r"^ value: <(\d+) ([^\s{}<>]+)(\{[0-9,]*\})?( \(phi\))?(?: @(\d+))?> "
    r"\(size=(\d+),offset=(\d+)\): (.+)$"
)
# Values of another colour that reuse this allocation (newer XLA): listed, not ours.
_REUSED_HEADER = " reused by buffers of a different color:"
_REUSED = re.compile(r"^  value: <.*> \(color=\d+\)$")
_SHAPE_TEXT = re.compile(r"\|[^|]*\|")
_KIND = re.compile(
    r"^(?:color \d+|page -?\d+|parameter \d+|shape \|\| at ShapeIndex \{[0-9,]*\}"
    r"|output shape is \|\||constant|thread-local|maybe-live-out|preallocated-temp)$"
)


@dataclass(frozen=True, slots=True)
class Value:
    """One HLO value with its place in an allocation."""

    id: int
    instruction: str
    index: str  # the shape index, "{}" for the whole output
    phi: bool
    size: int
    offset: int
    shape: str  # with layout, as XLA prints it
    line: int
    printed_index: bool = False  # XLA printed the index: the instruction's shape is a tuple

    @property
    def name(self) -> str:
        """The value as XLA names it: the instruction, with the index inside a tuple."""
        return self.key if self.printed_index else self.instruction

    @property
    def tuple_shaped(self) -> bool:
        """A tuple's table of pointers (XLA prints a tuple shape in parentheses)."""
        return self.shape.startswith("(")

    @property
    def key(self) -> str:
        """``INSTRUCTION{INDEX}``, as the live-range dump names the value."""
        return f"{self.instruction}{self.index}"


@dataclass(frozen=True, slots=True)
class Allocation:
    index: int
    size: int
    kinds: tuple[str, ...]  # e.g. ("preallocated-temp",), ("parameter 0", ...)
    color: int
    values: tuple[Value, ...]
    line: int

    @property
    def temp(self) -> bool:
        """Packed by XLA's heap simulator: the preallocated temp allocation."""
        return TEMP in self.kinds


def parse_assignment(text: str) -> tuple[Allocation, ...]:
    """Every allocation of the dump; InputError naming the line and the rule."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r") != _HEADER:
        raise InputError("line 1", f"not XLA's buffer assignment: expected {_HEADER!r}")
    out: list[Allocation] = []
    head: tuple[int, int, tuple[str, ...], int, int] | None = None
    values: list[Value] = []
    in_reused = False
    for number, raw in enumerate(lines[1:], start=2):
        line = raw.rstrip("\r")
        if not line:
            break  # the allocations end; older versions go on with other sections
        match = _ALLOCATION.match(line)
        if match:
            if head is not None:
                out.append(_allocation(head, values))
            kinds = _kinds(match[3], number)
            head = (int(match[1]), _int(match[2], number), kinds, _color(kinds), number)
            values, in_reused = [], False
            continue
        if head is None:
            raise InputError(f"line {number}", "expected 'allocation N: size BYTES, KINDS:'")
        if line == _REUSED_HEADER:
            in_reused = True
            continue
        if in_reused and _REUSED.match(line):
            continue
        value = _VALUE.match(line)
        if value is None or in_reused:
            raise InputError(
                f"line {number}",
                "not a line of XLA's buffer assignment (expected ' value: <ID NAME @COLOR> "
                f"(size=S,offset=O): SHAPE'): {line[:80]!r}",
            )
        values.append(
            Value(
                id=int(value[1]),
                instruction=value[2],
                index=value[3] or "{}",
                phi=value[4] is not None,
                size=_int(value[6], number),
                offset=_int(value[7], number),
                shape=value[8],
                line=number,
                printed_index=value[3] is not None,
            )
        )
        if values[-1].offset + values[-1].size > head[1]:
            raise InputError(
                f"line {number}",
                f"value {values[-1].name} ends at {values[-1].offset + values[-1].size}, "
                f"past its allocation's size {head[1]}",
            )
    if head is not None:
        out.append(_allocation(head, values))
    if not out:
        raise InputError("line 2", "no allocation: the buffer assignment is empty or cut short")
    return tuple(out)


def _allocation(
    head: tuple[int, int, tuple[str, ...], int, int], values: list[Value]
) -> Allocation:
    index, size, kinds, color, line = head
    return Allocation(index, size, kinds, color, tuple(values), line)


def _kinds(rest: str, number: int) -> tuple[str, ...]:
    # Shapes may hold commas: blank them out before splitting the list.
    parts = [p.strip() for p in _SHAPE_TEXT.sub("||", rest).split(",")]
    if parts and parts[0] == "":
        parts = parts[1:]
    for part in parts:
        if not _KIND.match(part):
            raise InputError(f"line {number}", f"allocation kind not understood: {part!r}")
    return tuple(p for p in parts if not p.startswith("shape "))


def _color(kinds: tuple[str, ...]) -> int:
    return next((int(k.split()[1]) for k in kinds if k.startswith("color ")), 0)


def _int(text: str, number: int) -> int:
    value = int(text)
    if value >= INT_LIMIT:
        raise InputError(f"line {number}", f"{text} is not below 2^62")
    return value
