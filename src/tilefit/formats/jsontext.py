"""JSON text with an indent, byte for byte as ``json.dumps`` writes it, fast on a placement.

``json.dumps`` with an indent runs Python's encoder, a generator step per key and
value: about 1.5 s for a placement of a million offsets, paid once for ``-o`` and again
for ``--json``. A large object of plain keys (printable ASCII, no quote nor backslash)
and plain ints is written here in one join instead; the rest of the document is still
``json.dumps``'s, the object spliced in where a marker held its place.
"""

from __future__ import annotations

import json
from typing import Any

LARGE = 1_000
"""Objects smaller than this are left to ``json.dumps``: the join gains nothing there."""
_MARKER = "\x00tilefit-large-object-{}\x00"


def json_text(obj: Any, indent: int, ensure_ascii: bool = True) -> str:
    """``json.dumps(obj, indent=indent, ensure_ascii=ensure_ascii)``, the same text."""
    large: list[tuple[dict[str, int], int]] = []
    marked = _marked(obj, 0, large)
    if not large:
        return json.dumps(obj, indent=indent, ensure_ascii=ensure_ascii)
    text = json.dumps(marked, indent=indent, ensure_ascii=ensure_ascii)
    for k, (offsets, level) in enumerate(large):
        placeholder = json.dumps(_MARKER.format(k), ensure_ascii=ensure_ascii)
        if text.count(placeholder) != 1:  # the document held the marker itself
            return json.dumps(obj, indent=indent, ensure_ascii=ensure_ascii)
        text = text.replace(placeholder, _object_text(offsets, indent, level))
    return text


def _marked(obj: Any, level: int, large: list[tuple[dict[str, int], int]]) -> Any:
    """``obj`` with each large plain object replaced by a marker (``large`` collects them
    with their nesting level); containers copied only along the way."""
    if isinstance(obj, dict):
        if _plain(obj):
            large.append((obj, level))
            return _MARKER.format(len(large) - 1)
        return {key: _marked(value, level + 1, large) for key, value in obj.items()}
    if isinstance(obj, list | tuple):
        return [_marked(value, level + 1, large) for value in obj]
    return obj


def _plain(obj: dict[Any, Any]) -> bool:
    """A large object whose keys are plain strings and whose values are ints (not bools)."""
    if len(obj) < LARGE or set(map(type, obj)) != {str} or set(map(type, obj.values())) != {int}:
        return False
    keys = "".join(obj)  # json.dumps escapes no character of printable ASCII but these two
    return keys.isascii() and keys.isprintable() and '"' not in keys and "\\" not in keys


def _object_text(obj: dict[str, int], indent: int, level: int) -> str:
    inner = "\n" + " " * (indent * (level + 1))
    body = ("," + inner).join([f'"{key}": {value}' for key, value in obj.items()])
    return "{" + inner + body + "\n" + " " * (indent * level) + "}"
