"""The little of TPU-MLIR's printed MLIR that tilefit reads: ops, their operands, names.

TPU-MLIR prints every op in the generic form, one op a line::

    %15 = "tpu.Conv2D"(%10, %11, %12) {..., ginfo = #tpu.lg<...>} : (...) -> ... loc(#loc16)

and names each value by its location, defined at the end of the module
(``#loc16 = loc("relu4_Relu")``). A value's name is the name TPU-MLIR's own logs use
for the tensor (the allocator's trace, the timestep tables).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

VALUE = r"%[A-Za-z0-9_#.$-]+"
_OP = re.compile(
    rf'^(?P<indent> *)(?:(?P<result>{VALUE})(?::\d+)? = )?"(?P<kind>[\w.]+)"\((?P<operands>[^)]*)\)'
)
_LOC_USE = re.compile(r"loc\((#loc\d*)\)\s*$")
_LOC_DEF = re.compile(r'^(#loc\d*) = loc\("((?:[^"\\]|\\.)*)"')
_FUNC = re.compile(r"^\s*func\.func\b")
_ARGUMENT = re.compile(r'(%arg\d+): [^%]*?loc\((?:"((?:[^"\\]|\\.)*)"|(#loc\d*))\)')
_TENSOR = re.compile(r"tensor<([0-9x]*)x?([a-z]+\d*)")
_ELEMENT_BYTES = {"f32": 4, "i32": 4, "ui32": 4, "f16": 2, "bf16": 2, "i16": 2, "ui16": 2,
                  "i8": 1, "ui8": 1, "si8": 1, "f8E4M3FN": 1, "f8E5M2": 1}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Op:
    """One op of the module: its type, the value it defines and the values it reads."""

    kind: str  # "tpu.Conv2D"
    result: str | None  # "%15"
    operands: tuple[str, ...]  # "%10", ...; "none" operands dropped
    name: str  # its location's name, the tensor's name in TPU-MLIR's logs
    scope: int  # the function it lies in (SSA names are per function)
    line: int  # 1-based
    text: str  # the whole line

    def attribute(self, key: str) -> str | None:
        """The raw text of attribute ``key`` up to the next comma at its level, if present."""
        match = re.search(rf"\b{re.escape(key)} = ", self.text)
        if match is None:
            return None
        depth = 0
        for end in range(match.end(), len(self.text)):
            ch = self.text[end]
            if ch in "[<({":
                depth += 1
            elif ch in "]>)}":
                if depth == 0:
                    return self.text[match.end() : end].strip()
                depth -= 1
            elif ch == "," and depth == 0:
                return self.text[match.end() : end].strip()
        return self.text[match.end() :].strip()


def locations(text: str) -> dict[str, str]:
    """``#locN`` -> the name it gives."""
    found = {}
    for line in text.splitlines():
        match = _LOC_DEF.match(line)
        if match is not None:
            found[match.group(1)] = match.group(2)
    return found


def ops(text: str) -> list[Op]:
    """Every op printed on a line of its own, in order."""
    names = locations(text)
    found = []
    scope = -1
    for number, line in enumerate(text.splitlines(), start=1):
        if _FUNC.match(line):
            scope += 1
            continue
        match = _OP.match(line)
        if match is None:
            continue
        loc = _LOC_USE.search(line)
        operands = tuple(
            o.strip() for o in match.group("operands").split(",") if o.strip().startswith("%")
        )
        found.append(
            Op(
                kind=match.group("kind"),
                result=match.group("result"),
                operands=operands,
                name=names.get(loc.group(1), "") if loc is not None else "",
                scope=scope,
                line=number,
                text=line,
            )
        )
    return found


def value_names(text: str) -> dict[tuple[int, str], str]:
    """(function, SSA value) -> TPU-MLIR's name for it: ops' results and the
    functions' arguments."""
    names = locations(text)
    found: dict[tuple[int, str], str] = {}
    scope = -1
    for line in text.splitlines():
        if _FUNC.match(line):
            scope += 1
            for match in _ARGUMENT.finditer(line):
                name = match.group(2) or names.get(match.group(3) or "", "")
                if name:
                    found[(scope, match.group(1))] = name
    for op in ops(text):
        if op.result is not None and op.name:
            found[(op.scope, op.result)] = op.name
    return found


def result_bytes(op: Op) -> int | None:
    """The bytes of the op's (first) result tensor, from its printed type."""
    arrow = op.text.rfind("->")
    return _bytes(op.text[arrow:]) if arrow >= 0 else None


def operand_bytes(op: Op, index: int) -> int | None:
    """The bytes of operand ``index``, from the op's printed function type."""
    types = _operand_types(op)
    return _count(*types[index]) if index < len(types) else None


def element_type(op: Op, index: int) -> str | None:
    """The element type of operand ``index`` (``f32``, ``i8``, ...)."""
    types = _operand_types(op)
    return types[index][1] if index < len(types) else None


def _operand_types(op: Op) -> list[tuple[str, str]]:
    """(dims, element) of each tensor operand in the op's printed function type."""
    colon = op.text.rfind(" : (")
    arrow = op.text.rfind("->")
    if colon < 0 or arrow < colon:
        return []
    return _TENSOR.findall(op.text[colon:arrow])


def _bytes(text: str) -> int | None:
    match = _TENSOR.search(text)
    return None if match is None else _count(match.group(1), match.group(2))


def _count(dims: str, element: str) -> int | None:
    size = _ELEMENT_BYTES.get(element)
    if size is None:
        return None
    total = size
    for d in dims.split("x"):
        if d:
            total *= int(d)
    return total
