"""``MODULE.PLATFORM_after_optimizations.txt``: what made each value, and where in the program.

The module's HLO text (``HloModule::ToString``) names every instruction with
its opcode and, where the front end gave it, its metadata: the ``op_name``
(``jit(loss)/jvp()/tanh``) and the program line, either as ``source_file`` and
``source_line`` or as a ``stack_frame_id`` into the tables XLA prints before
the computations (``FileNames``, ``FunctionNames``, ``FileLocations``,
``StackFrames``; the frame named is the innermost, the user's line). A fusion
without metadata of its own takes its fused computation's root's. The text is
optional: without it, values keep their HLO names only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

_INSTRUCTION = re.compile(r"^\s*(ROOT\s+)?%?([\w.\-]+) = .*? ([a-z][\w\-]*)\((.*)$")
_COMPUTATION = re.compile(r"^(?:ENTRY\s+)?%?([\w.\-]+) \(.*\{\s*$")
_METADATA = re.compile(r"metadata=\{([^{}]*)\}")
_CALLS = re.compile(r"calls=%?([\w.\-]+)")
_FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|-?\d+)')
_TABLES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
_ROW = re.compile(r"^(\d+) (.*)$")


@dataclass(frozen=True, slots=True)
class Made:
    """What made one instruction's values."""

    opcode: str  # fusion, copy, while, parameter, ...
    op_name: str | None  # the front end's name for it (jit(loss)/jvp()/tanh)
    line: str | None  # FILE:LINE in the program (the file's last two path parts)


def parse_hlo(text: str) -> dict[str, Made]:
    """Instruction name -> what made it, for every instruction of the module."""
    tables = _tables(text)
    roots: dict[str, str] = {}  # computation -> its root instruction
    raw: dict[str, tuple[str, dict[str, str], str | None]] = {}
    computation = None
    for line in text.splitlines():
        header = _COMPUTATION.match(line)
        if header is not None:
            computation = header[1]
            continue
        found = _INSTRUCTION.match(line)
        if found is None:
            continue
        name, opcode, rest = found[2], found[3], found[4]
        meta = _METADATA.search(rest)
        fields = {k: v.strip('"') for k, v in _FIELD.findall(meta[1])} if meta else {}
        calls = _CALLS.search(rest)
        raw[name] = (opcode, fields, calls[1] if calls and opcode == "fusion" else None)
        if found[1] and computation is not None:
            roots[computation] = name
    out: dict[str, Made] = {}
    for name, (opcode, fields, called) in raw.items():
        if not fields and called in roots:
            fields = raw[roots[called]][1]
        out[name] = Made(opcode, fields.get("op_name") or None, _line(fields, tables))
    return out


def _line(fields: dict[str, str], tables: dict[str, dict[int, str]]) -> str | None:
    if "source_file" in fields and "source_line" in fields:
        return f"{_short(fields['source_file'])}:{fields['source_line']}"
    frame = fields.get("stack_frame_id")
    if frame is None:
        return None
    location = _fields(tables["StackFrames"].get(int(frame), "")).get("file_location_id")
    spot = _fields(tables["FileLocations"].get(int(location or 0), ""))
    file = tables["FileNames"].get(int(spot.get("file_name_id", 0)), "").strip('"')
    if not file or "line" not in spot:
        return None
    return f"{_short(file)}:{spot['line']}"


def _fields(text: str) -> dict[str, str]:
    return {k: v.strip('"') for k, v in _FIELD.findall(text)}


def _tables(text: str) -> dict[str, dict[int, str]]:
    """The tables after the computations: id -> the rest of its row."""
    out: dict[str, dict[int, str]] = {name: {} for name in _TABLES}
    current = None
    for line in text.splitlines():
        if line.strip() in _TABLES:
            current = line.strip()
            continue
        if current is None:
            continue
        row = _ROW.match(line)
        if row is None:
            if not line.strip():
                continue
            current = None  # the computations start again, or another section
            continue
        out[current][int(row[1])] = row[2]
    return out


def _short(path: str) -> str:
    """The last two parts of a path: enough to find the file, short enough for a table."""
    parts = PurePosixPath(path).parts
    return "/".join(parts[-2:]) if len(parts) > 1 else path
