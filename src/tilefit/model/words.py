"""Counted nouns for messages: ``1 hole``, ``0 holes``, ``3 holes``; names wrapped to a
narrow panel between words, never inside one."""

from __future__ import annotations

import re

# Where a name may break: after a path's slash, a fused name's semicolon, a comma or a
# space; inside a chunk still too long, after the underscore, dot, colon or dash that
# joins its words.
_BREAK = re.compile(r"(?<=[/;, ])")
_JOIN = re.compile(r"(?<=[_.:-])")


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``noun`` for a count of one, else its plural (``many``, or ``noun`` + ``s``)."""
    if count == 1:
        return noun
    return many if many is not None else f"{noun}s"


def counted(count: int, noun: str, many: str | None = None) -> str:
    """``count`` and its noun, agreeing: ``counted(1, "hole")`` is ``1 hole``."""
    return f"{count} {plural(count, noun, many)}"


def wrap_words(text: str, width: int, most: int) -> list[str]:
    """``text`` in lines of about ``width`` characters, broken only between words (a word
    longer than the width keeps its own line whole); at most ``most`` lines, the last
    ending in an ellipsis when more would follow."""
    pieces: list[str] = []
    for chunk in _BREAK.split(text):
        pieces += _JOIN.split(chunk) if len(chunk) > width else [chunk]
    lines: list[str] = []
    line = ""
    for piece in filter(None, pieces):
        if line and len(line) + len(piece.rstrip()) > width:
            lines.append(line.rstrip())
            line = piece.lstrip()
        else:
            line += piece
    if line.strip():
        lines.append(line.rstrip())
    if len(lines) > most:
        lines = lines[:most]
        lines[-1] += " …"
    return lines


def lifetime_text(start: int, end: int) -> str:
    """``steps [2, 5)``; a lifetime that wraps round a cyclic capture's end (``start >
    end``) says so, ``steps [3, 1) (wraps)``, lest it read as an empty or reversed range."""
    return f"steps [{start}, {end})" + (" (wraps)" if start > end else "")
