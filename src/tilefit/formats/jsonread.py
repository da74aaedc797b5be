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


class MoreAfterValue(InputError):
    """Malformed JSON: more text after the first value; ``objects`` when an object follows
    an object (as on the lines of a ``.jsonl`` bundle)."""

    def __init__(self, place: str, rule: str, objects: bool) -> None:
        super().__init__(place, rule)
        self.objects = objects


def parse_json(text: str) -> Any:
    """Decode JSON text; malformed text or a repeated key is an InputError with its position."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys, parse_int=_parse_int)
    except json.JSONDecodeError as error:
        place = f"line {error.lineno} column {error.colno}"
        if error.msg.startswith("Extra data"):
            objects = text[: error.pos].lstrip().startswith("{") and text[error.pos] == "{"
            raise MoreAfterValue(
                place, "malformed JSON: more text follows the first JSON value", objects
            ) from None
        fail(place, f"malformed JSON: {decode_rule(error)}")
    except _DuplicateKey as error:
        fail("", f"malformed JSON: key {error.key!r} appears twice in one object")
    except RecursionError:
        fail("", "malformed JSON: nested too deeply")


_CUT = " (the file may be cut short)"


def _starts_a_word(text: str) -> bool:
    """Whether ``text`` is what is left of a literal or a number cut short: ``tr``, ``-``."""
    return text == "-" or any(word.startswith(text) for word in ("true", "false", "null"))


def decode_rule(error: json.JSONDecodeError) -> str:
    """What the decoder found wrong, as a complete sentence.

    Python's own messages stop mid-sentence ("Unterminated string starting at"),
    their place being given apart; this says what is wrong at that place, and
    whether the text simply ends too soon.
    """
    msg, rest = error.msg, error.doc[error.pos :]
    ends = not rest.strip() or (msg.startswith("Expecting value") and _starts_a_word(rest.strip()))
    trailing = error.doc[: error.pos].rstrip().endswith(",") and rest.lstrip()[:1] in ("]", "}")
    if trailing or msg.startswith("Illegal trailing comma"):
        return "a comma before the end of an object or list (JSON allows no trailing comma)"
    if msg.startswith("Unterminated string"):
        return "a string starts here and is never closed" + _CUT
    if msg.startswith("Expecting value"):
        if not error.doc.strip():
            return "the file is empty: expected a JSON object"
        if ends:
            return "the text ends where a value is expected" + _CUT
        return "expected a value here (an object, a list, a string, a number, true, false or null)"
    if ends and msg.startswith(("Expecting ',' delimiter", "Expecting ':'", "Expecting property")):
        return "the text ends inside an object or a list" + _CUT
    if msg.startswith("Expecting ',' delimiter"):
        return "expected ',' before the next item, or the end of the object or list"
    if msg.startswith("Expecting ':' delimiter"):
        return "expected ':' between a key and its value"
    if msg.startswith("Expecting property name"):
        return "expected a key in double quotes"
    if msg.startswith("Invalid control character"):
        return (
            "a line break or other control character inside a string: its closing quote "
            "may be missing, or the character must be escaped (\\n, \\t)"
        )
    if msg.startswith("Invalid \\uXXXX escape"):
        return "\\u in a string must be followed by four hexadecimal digits"
    if msg.startswith("Invalid \\escape"):
        return (
            'an unknown escape in a string (JSON knows \\" \\\\ \\/ \\b \\f \\n \\r \\t '
            "and \\uXXXX)"
        )
    if msg.startswith("Unexpected UTF-8 BOM"):
        return "the file starts with a byte order mark (U+FEFF): save it as UTF-8 without one"
    return msg[:1].lower() + msg[1:].removesuffix(" at").rstrip(":") + " here"
