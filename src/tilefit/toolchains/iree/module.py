"""A program or a dump, read to IREE's module before its packing pass and after it.

A program (``.mlir`` text or bytecode) is compiled by ``iree-compile`` to the
end of its stream phase, printing the module before and after the pass that
packs; a dump a user made (``--mlir-print-ir-before=iree-stream-layout-slices``,
docs/iree.md) is read as it is, and has an "after" only if it was asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tilefit.model.errors import InputError
from tilefit.toolchains.iree.compiler import Flags, dump
from tilefit.toolchains.iree.dump import Section, last_run, sections

_BYTECODE = b"ML\xefR"


@dataclass(frozen=True, slots=True)
class Stages:
    """The module before the packing pass (one section per function, or the whole
    module in the first), and after it where the dump has it."""

    before: tuple[Section, ...]
    after: tuple[Section, ...]
    module_scope: bool  # each section is the whole module
    from_program: bool  # tilefit ran IREE's compiler on a program


def is_dump(data: bytes) -> bool:
    return b"// -----// IR Dump " in data[: 1 << 20]


def read_stages(path: Path, flags: Flags, module_scope: bool = False) -> Stages:
    """The stages of one program (each function alone, or with ``module_scope`` the whole
    module) or dump (as it was made)."""
    where = str(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError("", f"cannot read: {error.strerror}", where) from None
    if is_dump(data):
        text, program = data.decode("utf-8", errors="replace"), False
    else:
        if not data.startswith(_BYTECODE):
            _check_text(data, where)
        text, program = dump(path, flags, module_scope), True
    found = sections(text, where)
    before = last_run(found, "Before")
    if not before:
        raise InputError("", "the dump holds no module before iree-stream-layout-slices", where)
    scoped = all(s.text.lstrip().startswith(("#", "module", "builtin.module")) for s in before)
    return Stages(tuple(before), tuple(last_run(found, "After")), scoped, program)


def _check_text(data: bytes, where: str) -> None:
    """A program must be MLIR, as text or bytecode; anything else is said before IREE runs."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("", "not MLIR: neither UTF-8 text nor MLIR bytecode", where) from None
    if "func" not in text and "module" not in text:
        raise InputError("", "not MLIR: no module and no function in it", where)
