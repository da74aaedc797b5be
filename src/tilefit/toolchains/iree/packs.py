"""The ``stream.resource.pack`` ops of a printed module: their slices, sizes and slabs.

A pack op reads ``%N:K = stream.resource.pack on(...) slices({[a, b] = %size, ...})
: index``: slice i lives over the op positions ``[a, b]`` of its execution region,
both ends inclusive, and has the byte size ``%size``; result ``%N#0`` is the slab's
size, ``%N#(i + 1)`` slice i's offset. A slice whose size is not an
``arith.constant`` is dynamic (IREE packs those at run time, conservatively).
The slab is transient when ``%N#0`` sizes a ``stream.resource.alloca`` of a
``!stream.resource<transient>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tilefit.toolchains.iree.mlir import NAME, Function, index_constants, line_of

_PACK = re.compile(
    rf"({NAME}):(\d+) = stream\.resource\.pack\b(?P<head>[^\n]*?)slices\(\{{(?P<body>.*?)\}}\)"
    r"\s*:\s*index",
    re.S,
)
_SLICE = re.compile(rf"\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]\s*=\s*({NAME})")
_OFFSET = re.compile(rf"\boffset\(({NAME})\)")


@dataclass(frozen=True, slots=True)
class Slice:
    """One slice of a pack: its lifetime (both ends inclusive) and its size."""

    index: int  # its place in the pack: the offset is result index + 1
    first: int
    last: int
    size: int | None  # None: dynamic
    size_name: str  # the value that sizes it

    def intersects(self, other: Slice) -> bool:
        return self.first <= other.last and other.first <= self.last


@dataclass(frozen=True, slots=True)
class Pack:
    """One ``stream.resource.pack`` op of a function."""

    name: str  # the value it defines, ``%N``
    function: str
    ordinal: int  # its place among the function's packs
    slices: tuple[Slice, ...]
    lifetime: str | None  # the resource whose slab it sizes ("transient"), None: not seen
    offset: str | None  # a base offset the op starts from, None: 0
    line: int  # its line in the module's text
    start: int  # where the op's text lies in the module's text
    end: int

    @property
    def dynamic(self) -> bool:
        return any(s.size is None for s in self.slices)

    def result(self, index: int) -> str:
        """The value of result ``index`` (0: the slab's size, i + 1: slice i's offset)."""
        return f"{self.name}#{index}"


def packs(text: str, function: Function) -> list[Pack]:
    """Every pack op of a function, in the order printed."""
    body = text[function.start : function.end]
    constants = index_constants(body)
    found: list[Pack] = []
    for match in _PACK.finditer(body):
        slices = tuple(
            Slice(i, int(m.group(1)), int(m.group(2)), constants.get(m.group(3)), m.group(3))
            for i, m in enumerate(_SLICE.finditer(match.group("body")))
        )
        name = match.group(1)
        base = _OFFSET.search(match.group("head"))
        found.append(
            Pack(
                name=name,
                function=function.name,
                ordinal=len(found),
                slices=slices,
                lifetime=_lifetime(body, name),
                offset=None if base is None else base.group(1),
                line=line_of(text, function.start + match.start()),
                start=function.start + match.start(),
                end=function.start + match.end(),
            )
        )
    return found


def _lifetime(body: str, name: str) -> str | None:
    """The lifetime of the resource whose size is the pack's slab (``%N#0``), if seen."""
    sized = re.search(
        rf"stream\.resource\.alloca?\b[^\n]*!stream\.resource<(\w+)>\{{{re.escape(name)}#0\}}",
        body,
    )
    return None if sized is None else sized.group(1)
