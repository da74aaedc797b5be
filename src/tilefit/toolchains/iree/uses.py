"""Which command of an execution region uses each slice: its labels and sources.

Inside ``stream.cmd.execute`` each command (``stream.cmd.dispatch @exe::@entry``,
``stream.cmd.copy``, ``stream.cmd.fill``, ...) names the resource ranges it
touches on its own line or the lines after it, as ``ro``/``wo``/``rw``
``%arg[%offset for %length]``. A slice's offset value ``%N#i`` appearing there is
a use of the slice by that command; the first command writing it made it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_COMMAND = re.compile(r"stream\.cmd\.(\w+)(?:\s+(@[\w$.:@-]+))?")
_ACCESS = re.compile(r"\b(ro|wo|rw)\s+%[\w$.-]+\[\s*(%[\w$.#-]+)")


@dataclass(frozen=True, slots=True)
class Use:
    """The commands that use one slice, in the order printed."""

    writer: str | None  # the first command that writes it
    readers: int  # how many commands read it


def slice_uses(body: str, pack: str, count: int) -> list[Use]:
    """The uses of slices ``0..count-1`` of pack ``%N`` (their offsets ``%N#1...``)."""
    writers: dict[str, str] = {}
    readers: dict[str, int] = {}
    command: str | None = None
    for line in body.splitlines():
        found = _COMMAND.search(line)
        if found is not None and found.group(1) not in ("execute", "concurrent", "serial"):
            command = _command(found)
        for access in _ACCESS.finditer(line):
            value = access.group(2)
            if command is None or not value.startswith(f"{pack}#"):
                continue
            if access.group(1) == "ro":
                readers[value] = readers.get(value, 0) + 1
            else:
                writers.setdefault(value, command)
    return [
        Use(writers.get(f"{pack}#{i + 1}"), readers.get(f"{pack}#{i + 1}", 0)) for i in range(count)
    ]


def _command(found: re.Match[str]) -> str:
    kind, symbol = found.group(1), found.group(2)
    if symbol is None:
        return kind
    entry = symbol.rsplit("::", 1)[-1].lstrip("@")
    return f"{kind} {entry}"
