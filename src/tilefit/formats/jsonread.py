"""Typed access to decoded JSON: every error names the JSON path and the rule.

The loaders (``tilefit.formats.load``) build on these; ``parse_json`` reports
malformed text with its line and column, and a key repeated in one object.
"""

from __future__ import annotations

import json
from typing import Any, NoReturn

from tilefit.model.errors import INT_LIMIT, INT_LIMIT_TEXT, InputError


def fail(place: str, rule: str) -> NoReturn:
    raise InputError(place, rule)


def type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number with a fraction"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def as_int(value: object, place: str) -> int:
    if type(value) is not int:
        fail(place, f"must be an integer, got {type_name(value)}")
    if not -INT_LIMIT < value < INT_LIMIT:
        fail(place, f"must be below {INT_LIMIT_TEXT} in magnitude (capture-v1)")
    return value


def _parse_int(text: str) -> int:
    """A JSON integer; one with more digits than any valid one is clamped to the limit.

    Clamping keeps the error located (``as_int`` names the JSON path) and keeps
    Python from converting (or refusing, past 4300 digits) a huge number.
    """
    if len(text) > 20:
        return -INT_LIMIT if text.startswith("-") else INT_LIMIT
    return int(text)


def as_str(value: object, place: str) -> str:
    if not isinstance(value, str):
        fail(place, f"must be a string, got {type_name(value)}")
    return value


def as_list(value: object, place: str) -> list[Any]:
    if not isinstance(value, list):
        fail(place, f"must be a list, got {type_name(value)}")
    return value


def as_object(
    value: object, place: str, allowed: set[str], required: tuple[str, ...]
) -> dict[str, Any]:
    if not isinstance(value, dict):
        fail(place, f"must be an object, got {type_name(value)}")
    if not allowed.issuperset(value):
        unknown = sorted(set(value) - allowed)[0]
        fail(join_path(place, unknown), f"unknown key (allowed: {', '.join(sorted(allowed))})")
    for key in required:
        if key not in value:
            fail(join_path(place, key), "required key is missing")
    return value


def join_path(place: str, key: str) -> str:
    return f"{place}.{key}" if place else key


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def parse_json(text: str) -> Any:
    """Decode JSON text; malformed text or a repeated key is an InputError with its position."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys, parse_int=_parse_int)
    except json.JSONDecodeError as error:
        fail(f"line {error.lineno} column {error.colno}", f"malformed JSON: {error.msg}")
    except _DuplicateKey as error:
        fail("", f"malformed JSON: key {error.key!r} appears twice in one object")
    except RecursionError:
        fail("", "malformed JSON: nested too deeply")
