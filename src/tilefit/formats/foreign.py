"""Other tools' files, known by their first bytes: a user who hands one to the wrong command is
told what it is and which command reads it, before any parsing says "not UTF-8"."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# Enough of a file to know it: every mark below is in its first bytes or lines.
_HEAD = 1 << 16


@dataclass(frozen=True)
class Foreign:
    """A kind of file another tool writes, and the tilefit command that reads it."""

    kind: str  # what it is, as a sentence names it: "a TFLite model"
    toolchains: tuple[str, ...]  # the toolchains whose import reads it (``tilefit import NAME``)
    reads: str  # how to read it, with ``{path}`` for the file: a command, or where to look
    marks: Callable[[Path, bytes], bool]  # the file's name and first bytes say it is one

    def advice(self, path: str | Path) -> str:
        return self.reads.format(path=shlex.quote(str(path)))


def _text(head: bytes) -> str | None:
    """The head as text, unless it is JSON (a capture may say anything in its labels)."""
    text = head.decode("utf-8", errors="replace")
    return None if text.lstrip()[:1] in ("{", "[") else text


def _tflite(path: Path, head: bytes) -> bool:
    return head[4:8] == b"TFL3"  # the flatbuffer's file identifier (tflite-micro's schema)


def _pte(path: Path, head: bytes) -> bool:
    return re.fullmatch(rb"ET\d\d", head[4:8]) is not None  # ExecuTorch's program identifier


def _executorch_json(path: Path, head: bytes) -> bool:
    return re.search(rb'"format"\s*:\s*"tilefit-executorch-specs"', head[:4096]) is not None


def _tpumlir_final(path: Path, head: bytes) -> bool:
    text = _text(head)
    return text is not None and re.search(r"\"tpu\.|#tpu\.lg<|module\.chip\s*=", text) is not None


def _tpumlir_trace(path: Path, head: bytes) -> bool:
    text = _text(head)
    marks = ("assignLmemAddr", "lmem_eu_bytes", "timestep_start = ")
    return text is not None and any(mark in text for mark in marks)


def _xla(path: Path, head: bytes) -> bool:
    text = _text(head)
    if path.name.endswith("-buffer-assignment.txt"):
        return True
    return text is not None and re.match(r"\s*(HloModule |BufferAssignment:)", text) is not None


def _mlir(path: Path, head: bytes) -> bool:
    text = _text(head)
    if text is None:
        return False
    if path.suffix.lower() == ".mlir" or text.startswith("// -----// IR Dump"):
        return True
    return re.search(r"^\s*(module\b.*\{|func\.func |util\.func )", text, re.M) is not None


# In the order asked: TPU-MLIR's MLIR before any other MLIR (which TPU-MLIR's import may
# read too: the last mark is loose).
FOREIGN: tuple[Foreign, ...] = (
    Foreign("a TFLite model", ("tflm",), "`tilefit import tflm {path}` reads its arena", _tflite),
    Foreign(
        "an ExecuTorch program (.pte)",
        ("executorch",),
        "tilefit plans its arenas inside to_executorch, and `tilefit import executorch "
        "NAME.executorch.json` reads what its planner wrote (docs/executorch.md)",
        _pte,
    ),
    Foreign(
        "ExecuTorch's tensor specs",
        ("executorch",),
        "`tilefit import executorch {path}` reads its arenas",
        _executorch_json,
    ),
    Foreign(
        "TPU-MLIR's final.mlir",
        ("tpumlir",),
        "`tilefit import tpumlir {path}` reads its local memory plan",
        _tpumlir_final,
    ),
    Foreign(
        "TPU-MLIR's allocator trace (lmem_assign)",
        ("tpumlir",),
        "`tilefit import tpumlir {path}` reads its attempts",
        _tpumlir_trace,
    ),
    Foreign(
        "a file of an XLA dump",
        ("xla",),
        "`tilefit import xla DUMP` reads the dump's folder (XLA_FLAGS=--xla_dump_to=DUMP)",
        _xla,
    ),
    Foreign(
        "an MLIR program",
        ("iree", "tpumlir"),
        "`tilefit import iree {path}` reads IREE's slabs",
        _mlir,
    ),
)


def recognise(path: str | Path) -> Foreign | None:
    """The kind of foreign file at ``path``, or None (not one, or not readable: the reader
    says why). A folder holding an XLA dump's buffer assignments is one."""
    path = Path(path)
    try:
        if path.is_dir():
            dumped = next(path.glob("*-buffer-assignment.txt"), None)
            return None if dumped is None else _XLA_FOLDER
        with path.open("rb") as file:
            head = file.read(_HEAD)
    except OSError:
        return None
    return next((kind for kind in FOREIGN if kind.marks(path, head)), None)


_XLA_FOLDER = Foreign(
    "an XLA dump's folder", ("xla",), "`tilefit import xla {path}` reads it", lambda p, h: True
)


def refuse(path: str | Path, wanted: str) -> None:
    """InputError when ``path`` is a known foreign file where ``wanted`` (``a capture``)
    was expected: what it is, and the command that reads it."""
    from tilefit.model.errors import InputError

    found = recognise(path)
    if found is not None:
        raise InputError("", f"this is {found.kind}, not {wanted}: {found.advice(path)}")


def refuse_elsewhere(path: str | Path, toolchain: str, command: str) -> None:
    """InputError when ``path`` is a known file of another toolchain than ``toolchain``, whose
    ``command`` (``tilefit import iree``) was given it."""
    from tilefit.model.errors import InputError

    found = recognise(path)
    if found is not None and toolchain not in found.toolchains:
        rule = f"this is {found.kind}, which {command} does not read: {found.advice(path)}"
        raise InputError("", rule, str(path))
