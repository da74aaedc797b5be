"""Source locations in printed MLIR (``--mlir-print-debuginfo``): ``loc(...)`` made words.

An op ends with ``loc(#locN)``, and the module defines ``#locN = loc(...)``: a
file position (``"model.py":12:8``), a name around another location
(``"jit(f)/dot_general"(#loc3)``, as JAX writes them), a call site or a fusion
of several. A location is told as its first name and its first file
position, ``jit(f)/dot_general at model.py:12``.
"""

from __future__ import annotations

import re

_ALIAS = re.compile(r"^(#loc\d*) = loc\((.*)\)[ \t]*$", re.M)
_REFERENCE = re.compile(r"#loc\d*\b")
_NAME = re.compile(r'"((?:[^"\\]|\\.)*)"\(')
_POSITION = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+)(?::\d+)?')


def aliases(text: str) -> dict[str, str]:
    """``#locN`` -> what it stands for, as printed."""
    return {m.group(1): m.group(2) for m in _ALIAS.finditer(text)}


def trailing(line: str) -> str | None:
    """The location a printed op's line ends with (``loc(...)``, nested as deep as it
    comes when printed inline), if any."""
    end = line.rstrip()
    if not end.endswith(")"):
        return None
    start = end.rfind(" loc(")
    while start >= 0:
        inside = end[start + len(" loc(") : -1]
        if _balanced(inside):
            return inside
        start = end.rfind(" loc(", 0, start)
    return None


def _balanced(text: str) -> bool:
    """Whether the parentheses outside quoted strings balance and never close early."""
    depth, quoted, escaped = 0, False, False
    for char in text:
        if quoted:
            escaped = char == "\\" and not escaped
            quoted = escaped or char != '"'
            continue
        if char == '"':
            quoted = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0 and not quoted


def told(location: str, known: dict[str, str]) -> str | None:
    """A location in words: its first name and first file position (None: unknown)."""
    expanded = _expand(location, known, set())
    name = _NAME.search(expanded)
    position = _POSITION.search(expanded)
    where = None if position is None else f"{position.group(1)}:{position.group(2)}"
    if name is not None and where is not None:
        return f"{name.group(1)} at {where}"
    if where is not None:
        return where
    return None if name is None else name.group(1)


def _expand(location: str, known: dict[str, str], seen: set[str]) -> str:
    def inline(match: re.Match[str]) -> str:
        alias = match.group(0)
        if alias in seen or alias not in known:
            return ""
        return _expand(known[alias], known, seen | {alias})

    return _REFERENCE.sub(inline, location)
