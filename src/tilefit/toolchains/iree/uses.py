"""Which command of an execution region uses each slice: its labels and sources.

Inside ``stream.cmd.execute`` each command (``stream.cmd.dispatch @exe::@entry``,
``stream.cmd.copy``, ``stream.cmd.fill``, ...) names the resource ranges it
touches on its own line or the lines after it, as ``ro``/``wo``/``rw``
``%arg[%offset for %length]``. A slice's offset value ``%N#i`` appearing there is
a use of the slice by that command; the first command writing it made it. A
command's source location (printed with ``--mlir-print-debuginfo``) ends the
first line at its own indent that has one: its own line, or its closing ``}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tilefit.toolchains.iree.locations import told, trailing

_COMMAND = re.compile(r"^( *)(?:%[^=]*= )?stream\.cmd\.(\w+)(?:\s+(@[\w$.:@-]+))?")
_ACCESS = re.compile(r"\b(ro|wo|rw)\s+%[\w$.-]+\[\s*(%[\w$.#-]+)")
_REGIONS = ("execute", "concurrent", "serial")


@dataclass(frozen=True, slots=True)
class Use:
    """The commands that use one slice, in the order printed."""

    writer: str | None  # the first command that writes it
    readers: int  # how many commands read it
    location: str | None = None  # the writer's source location, in words


@dataclass(frozen=True, slots=True)
class _Command:
    name: str
    location: str | None


def slice_uses(body: str, pack: str, count: int, known: dict[str, str] | None = None) -> list[Use]:
    """The uses of slices ``0..count-1`` of pack ``%N`` (their offsets ``%N#1...``);
    ``known`` the module's location aliases."""
    lines = body.splitlines()
    writers: dict[str, _Command] = {}
    readers: dict[str, int] = {}
    command: _Command | None = None
    for index, line in enumerate(lines):
        found = _COMMAND.search(line)
        if found is not None and found.group(2) not in _REGIONS:
            command = _Command(_name(found), _location(lines, index, found.group(1), known))
        for access in _ACCESS.finditer(line):
            value = access.group(2)
            if command is None or not value.startswith(f"{pack}#"):
                continue
            if access.group(1) == "ro":
                readers[value] = readers.get(value, 0) + 1
            else:
                writers.setdefault(value, command)
    uses = []
    for i in range(count):
        value = f"{pack}#{i + 1}"
        writer = writers.get(value)
        uses.append(
            Use(
                None if writer is None else writer.name,
                readers.get(value, 0),
                None if writer is None else writer.location,
            )
        )
    return uses


def _name(found: re.Match[str]) -> str:
    kind, symbol = found.group(2), found.group(3)
    if symbol is None:
        return kind
    entry = symbol.rsplit("::", 1)[-1].lstrip("@")
    return f"{kind} {entry}"


def _location(
    lines: list[str], start: int, indent: str, known: dict[str, str] | None
) -> str | None:
    if known is None:
        return None
    for offset, line in enumerate(lines[start:]):
        if not line.startswith(indent) or line[len(indent) :].startswith(" "):
            continue  # deeper: the command's operands or its nested commands
        location = trailing(line)
        if location is not None:
            return told(location, known)
        if offset > 0:
            return None
    return None
