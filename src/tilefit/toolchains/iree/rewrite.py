"""Offsets written into a module: each pack op replaced by ``arith.constant`` values.

Pack ``%N:K`` becomes K constants ``%tilefit_packP_i`` (the slab, then each
slice's offset), and every use ``%N#i`` in its function is renamed to them.
New names start with a letter: MLIR reads a name that starts with a digit
only when it is all digits (``%186_wb`` does not parse).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tilefit.toolchains.iree.mlir import Function
from tilefit.toolchains.iree.packs import Pack


@dataclass(frozen=True, slots=True)
class Written:
    """One pack's values to write: the slab, then each slice's offset."""

    pack: Pack
    function: Function
    values: tuple[int, ...]


def constant_name(pack: Pack, index: int) -> str:
    return f"%tilefit_pack{pack.ordinal}_{index}"


def with_offsets(text: str, written: Sequence[Written]) -> str:
    """The module's text with each pack given replaced by its constants."""
    by_function: dict[int, list[Written]] = {}
    for item in written:
        by_function.setdefault(item.function.start, []).append(item)
    for start in sorted(by_function, reverse=True):
        items = by_function[start]
        function = items[0].function
        body = text[function.start : function.end]
        for item in sorted(items, key=lambda w: w.pack.start, reverse=True):
            at, end = item.pack.start - function.start, item.pack.end - function.start
            indent = " " * (at - (body.rfind("\n", 0, at) + 1))
            constants = f"\n{indent}".join(
                f"{constant_name(item.pack, i)} = arith.constant {v} : index"
                for i, v in enumerate(item.values)
            )
            body = body[:at] + constants + body[end:]
        for item in items:
            body = _renamed(body, item.pack)
        text = text[: function.start] + body + text[function.end :]
    return text


def _renamed(body: str, pack: Pack) -> str:
    """Every use ``%N#i`` of the pack's results renamed to its constants."""

    def name(match: re.Match[str]) -> str:
        return constant_name(pack, int(match.group(1)))

    return re.sub(re.escape(pack.name) + r"#(\d+)\b", name, body)
