"""Counted nouns for messages: ``1 hole``, ``0 holes``, ``3 holes``."""

from __future__ import annotations


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``noun`` for a count of one, else its plural (``many``, or ``noun`` + ``s``)."""
    if count == 1:
        return noun
    return many if many is not None else f"{noun}s"


def counted(count: int, noun: str, many: str | None = None) -> str:
    """``count`` and its noun, agreeing: ``counted(1, "hole")`` is ``1 hole``."""
    return f"{count} {plural(count, noun, many)}"
