"""Edits files and edit options: reading and writing ``tilefit.model.edits`` values.

An edits file is the JSON object ``{"format": "tilefit-edits", "version": 1,
"edits": [...]}``; each edit is one object, applied in order:

- ``{"drop": P}``: remove the requests P names;
- ``{"resize": P, "size": N}`` (N bytes) or ``{"resize": P, "by": N}`` (N more, or fewer);
- ``{"lifetime": P, "start": S, "end": E}``: live during steps [S, E);
- ``{"capacity_add": N}``: N more bytes at the top of memory (N < 0: that many fewer).

P is a request or sequence id, or a shell-style pattern (``m*.l3.cast.staging``).
The same edits come from the command line as ``--drop P``, ``--resize P=N``
(``+N``/``-N``: relative), ``--lifetime P=S:E`` and ``--capacity-add N``.
Every error names its place: a JSON path (``edits[2].by``), prefixed by the
file's name when read from a file, or the option as given.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import replace
from pathlib import Path
from typing import Any

from tilefit.formats.jsonread import (
    as_int,
    as_list,
    as_object,
    as_str,
    fail,
    parse_json,
    type_name,
)
from tilefit.formats.load import read_text
from tilefit.model.capture import FORMAT as CAPTURE_FORMAT
from tilefit.model.edits import AddCapacity, Drop, Edit, Lifetime, Resize
from tilefit.model.errors import INT_LIMIT, InputError

EDITS_FORMAT = "tilefit-edits"
EDITS_VERSION = 1

_TOP_KEYS = {"format", "version", "edits"}
# Each edit's kind key, and the keys an edit of that kind may have.
_KINDS: dict[str, set[str]] = {
    "drop": {"drop"},
    "resize": {"resize", "size", "by"},
    "lifetime": {"lifetime", "start", "end"},
    "capacity_add": {"capacity_add"},
}

# --------------------------------------------------------------------------- the file


def read_edits(path: str | Path) -> tuple[Edit, ...]:
    """The edits of an edits file; each edit's place starts with the file's name."""
    path = Path(path)
    try:
        edits = edits_from_json(parse_json(read_text(path)))
    except InputError as error:
        raise error.located(str(path)) from None
    return tuple(replace(e, place=f"{path}: {e.place}") for e in edits)


def edits_from_json(obj: object) -> tuple[Edit, ...]:
    """The edits of a decoded edits file, in order; InputError names the JSON path."""
    if isinstance(obj, dict) and obj.get("format") == CAPTURE_FORMAT:
        fail("format", f'"{CAPTURE_FORMAT}": this is a capture, not an edits file')
    top = as_object(obj, "", _TOP_KEYS, ("format", "version", "edits"))
    if top["format"] != EDITS_FORMAT:
        fail("format", f'must be "{EDITS_FORMAT}"')
    if type(top["version"]) is not int or top["version"] != EDITS_VERSION:
        fail("version", f"must be {EDITS_VERSION} (this tilefit reads edits version 1)")
    raw = as_list(top["edits"], "edits")
    return tuple(_edit(item, f"edits[{k}]") for k, item in enumerate(raw))


def _edit(value: object, place: str) -> Edit:
    if not isinstance(value, dict):
        fail(place, f"must be an object, got {type_name(value)}")
    kinds = [key for key in value if key in _KINDS]
    if not kinds:
        known = set().union(*_KINDS.values())
        as_object(value, place, known, ())  # an unknown key is the likelier mistake
        fail(place, "must name one edit: drop, resize, lifetime or capacity_add")
    if len(kinds) > 1:
        fail(f"{place}.{kinds[1]}", f"one edit per object: this one is already a {kinds[0]}")
    kind = kinds[0]
    obj = as_object(value, place, _KINDS[kind], ())
    if kind == "capacity_add":
        return AddCapacity(_nonzero(obj[kind], f"{place}.{kind}"), f"{place}.{kind}")
    pattern = _pattern(obj[kind], f"{place}.{kind}")
    if kind == "drop":
        return Drop(pattern, f"{place}.drop")
    if kind == "resize":
        if "size" in obj and "by" in obj:
            fail(f"{place}.by", "give size (the new bytes) or by (the change), not both")
        if "size" in obj:
            return Resize(pattern, _positive(obj["size"], f"{place}.size"), False, place)
        if "by" in obj:
            return Resize(pattern, as_int(obj["by"], f"{place}.by"), True, place)
        fail(place, "a resize needs size (the new bytes) or by (the change in bytes)")
    for key in ("start", "end"):
        if key not in obj:
            fail(f"{place}.{key}", "required key is missing")
    start = as_int(obj["start"], f"{place}.start")
    end = as_int(obj["end"], f"{place}.end")
    if start < 0:
        fail(f"{place}.start", "must be >= 0")
    if end == start:
        # start > end is left to the capture: on a circle it wraps, on a line it is refused
        fail(f"{place}.end", f"must differ from start ({start}): a lifetime holds a step")
    return Lifetime(pattern, start, end, place)


def _pattern(value: object, place: str) -> str:
    pattern = as_str(value, place)
    if not pattern:
        fail(place, "must name a request or sequence id, or a pattern (it is empty)")
    return pattern


def _positive(value: object, place: str) -> int:
    number = as_int(value, place)
    if number <= 0:
        fail(place, "must be > 0")
    return number


def _nonzero(value: object, place: str) -> int:
    number = as_int(value, place)
    if number == 0:
        fail(place, "must not be 0 (N > 0 adds bytes at the top of memory, N < 0 removes them)")
    return number


def edits_json(edits: tuple[Edit, ...] | list[Edit]) -> dict[str, Any]:
    """The edits file's object for these edits (places are not written)."""
    return {
        "format": EDITS_FORMAT,
        "version": EDITS_VERSION,
        "edits": [edit_json(e) for e in edits],
    }


def edit_json(edit: Edit) -> dict[str, Any]:
    """One edit as the edits file writes it."""
    if isinstance(edit, Drop):
        return {"drop": edit.pattern}
    if isinstance(edit, Resize):
        return {"resize": edit.pattern, "by" if edit.relative else "size": edit.size}
    if isinstance(edit, Lifetime):
        return {"lifetime": edit.pattern, "start": edit.start, "end": edit.end}
    return {"capacity_add": edit.size}


def edits_text(edits: tuple[Edit, ...] | list[Edit]) -> str:
    """An edits file's text: one edit per line, so that files diff well."""
    obj = edits_json(edits)
    items = [json.dumps(e, ensure_ascii=False) for e in obj["edits"]]
    body = "[\n" + ",\n".join(f"    {item}" for item in items) + "\n  ]" if items else "[]"
    return (
        f'{{\n  "format": "{EDITS_FORMAT}",\n  "version": {EDITS_VERSION},\n  "edits": {body}\n}}\n'
    )


# --------------------------------------------------------------------------- options

OPTIONS = ("--drop", "--resize", "--lifetime", "--capacity-add")
_INT = re.compile(r"[+-]?[0-9]+")


def edit_from_option(option: str, text: str) -> Edit:
    """The edit an option gives (``--resize`` with ``m0.x=-64``); its place is the option."""
    place = f"{option} {text}" if text else option
    if option == "--capacity-add":
        size = _option_int(text, place, positive=False)
        if size == 0:
            fail(place, "must not be 0 (BYTES adds memory at the top, -BYTES removes it)")
        return AddCapacity(size, place)
    if option == "--drop":
        return Drop(_option_pattern(text, place), place)
    pattern, equals, value = text.rpartition("=")
    if option == "--resize":
        if not equals:
            fail(place, "must be ID=BYTES (or ID=+BYTES, ID=-BYTES to change the size)")
        relative = value[:1] in ("+", "-")
        size = _option_int(value, place, positive=not relative)
        return Resize(_option_pattern(pattern, place), size, relative, place)
    if option == "--lifetime":
        start_text, colon, end_text = value.partition(":")
        if not equals or not colon:
            fail(
                place,
                "must be ID=START:END (the steps [START, END) it lives in; on a circle START > END "
                "wraps)",
            )
        start = _option_int(start_text, place, positive=False)
        end = _option_int(end_text, place, positive=False)
        if start < 0:
            fail(place, f"START must be >= 0, got {start}")
        if end == start:
            fail(place, f"END must differ from START, got [{start}, {end})")
        return Lifetime(_option_pattern(pattern, place), start, end, place)
    raise ValueError(f"not an edit option: {option}")


def _option_pattern(text: str, place: str) -> str:
    if not text:
        fail(place, "must name a request or sequence id, or a pattern")
    return text


def _option_int(text: str, place: str, *, positive: bool) -> int:
    if not _INT.fullmatch(text):
        fail(place, f"{text!r} is not a whole number of bytes or steps")
    digits = text.lstrip("+-")
    # Clamp a huge number before converting (as_int then refuses it), as the JSON reader does.
    number = INT_LIMIT if len(digits) > 20 else int(digits)
    number = as_int(-number if text.startswith("-") else number, place)
    if positive and number <= 0:
        fail(place, f"must be > 0, got {number}")
    return number


def edit_argument(edit: Edit) -> str:
    """The command-line form of an edit, quoted for a POSIX shell."""
    if isinstance(edit, AddCapacity):
        return f"--capacity-add {edit.size}"
    if isinstance(edit, Drop):
        return f"--drop {shlex.quote(edit.pattern)}"
    if isinstance(edit, Resize):
        sign = "+" if edit.relative and edit.size >= 0 else ""
        return f"--resize {shlex.quote(f'{edit.pattern}={sign}{edit.size}')}"
    return f"--lifetime {shlex.quote(f'{edit.pattern}={edit.start}:{edit.end}')}"
