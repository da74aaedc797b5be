"""The little of MLIR's printed form the import reads: functions, constants, value uses.

Printed MLIR (``iree-compile``'s and ``iree-opt``'s output) is regular enough
for this: a function opens on a line ``util.func ... {`` and closes on the first
later line holding only ``}`` at the same indent; a value's name is unique
within its function (MLIR names values per region isolated from above).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NAME = r"%[A-Za-z0-9_$.-]+"
_FUNC = re.compile(r"^( *)(?:util\.func|func\.func)\b[^@\n]*@([\w$.-]+)[^\n]*\{[ \t]*$", re.M)
_CONSTANT = re.compile(rf"^\s*({NAME}) = arith\.constant (-?\d+) : index\b", re.M)


@dataclass(frozen=True, slots=True)
class Function:
    """One function of a printed module: its name and where its text lies."""

    name: str
    start: int  # offsets into the module's text
    end: int
    line: int  # its first line in the text (1-based)


def functions(text: str) -> list[Function]:
    """The functions of a printed module (``util.func``, ``func.func``), outermost only."""
    found: list[Function] = []
    position = 0
    while (head := _FUNC.search(text, position)) is not None:
        indent = head.group(1)
        close = re.compile(rf"^{indent}}}[^\n]*$", re.M).search(text, head.end())
        end = len(text) if close is None else close.end()
        line = text.count("\n", 0, head.start()) + 1
        found.append(Function(head.group(2), head.start(), end, line))
        position = end
    return found


def index_constants(text: str) -> dict[str, int]:
    """``%name = arith.constant N : index`` in this text, name to value."""
    return {m.group(1): int(m.group(2)) for m in _CONSTANT.finditer(text)}


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1
