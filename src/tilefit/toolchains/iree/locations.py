"""Source locations in printed MLIR (``--mlir-print-debuginfo``): ``loc(...)`` made words.

An op ends with ``loc(#locN)``, and the module defines ``#locN = loc(...)``: a
file position (``"model.py":12:8``), a name around another location
(``"jit(f)/dot_general"(#loc3)``, as JAX writes them), a call site or a fusion
of several. A location is told as its first name and its first file
position with the one that called it, ``jit(f)/dot_general at model.py:12 called at
model.py:30``.
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
    """A location in words: its first name and its first file position, with the position
    that called it where there is one (of a fusion, its first location)."""
    expanded = _first_fused(_expand(location, known, set()))
    name = _NAME.search(expanded)
    positions: list[str] = []
    for found in _POSITION.finditer(expanded):
        position = f"{found.group(1)}:{found.group(2)}"
        if position not in positions:
            positions.append(position)
    where = " called at ".join(positions[:2]) if positions else None
    if name is not None and where is not None:
        return f"{name.group(1)} at {where}"
    if where is not None:
        return where
    return None if name is None else name.group(1)


def _first_fused(location: str) -> str:
    """``fused[a, b]`` -> ``a`` (the locations of several ops fused into one command)."""
    text = location.strip()
    if not text.startswith("fused"):
        return text
    start = text.find("[")
    depth, quoted = 0, False
    for i in range(start + 1, len(text)):
        char = text[i]
        if char == '"' and text[i - 1] != "\\":
            quoted = not quoted
        elif not quoted and char in "([":
            depth += 1
        elif not quoted and char in ")]":
            if depth == 0:
                return text[start + 1 : i]
            depth -= 1
        elif not quoted and char == "," and depth == 0:
            return text[start + 1 : i]
    return text


def _expand(location: str, known: dict[str, str], seen: set[str]) -> str:
    def inline(match: re.Match[str]) -> str:
        alias = match.group(0)
        if alias in seen or alias not in known:
            return ""
        return _expand(known[alias], known, seen | {alias})

    return _REFERENCE.sub(inline, location)
