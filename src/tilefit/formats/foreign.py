"""Allocations planned by other toolchains, imported as captures.

Each toolchain is one subpackage of ``tilefit.formats`` (``xla``) and one
entry in ``TOOLCHAINS``: a reader from the paths a user names to captures,
each with the toolchain's own placement beside it (its offsets, to be
refereed like any other) and its heap in ``Capture.origin``. The next one
(a TFLM arena plan, TVM, IREE) is one more subpackage and one more entry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from tilefit.model.capture import Capture, Memory, Range
from tilefit.model.placement import Placement


@dataclass(frozen=True, slots=True)
class ImportOptions:
    capacity: int | None = None  # the memory to ask about (default: the toolchain's own heap)
    alignment: int | None = None  # overrides the toolchain's known heap alignment


@dataclass(frozen=True)
class Imported:
    """One capture made from a toolchain's plan, with the toolchain's placement of it."""

    capture: Capture
    placement: Placement  # the toolchain's own offsets
    source: str  # the file it came from
    values: int  # the toolchain's buffers behind the requests (more where several share one)


@dataclass(frozen=True, slots=True)
class Toolchain:
    name: str
    summary: str
    read: Callable[[Sequence[str], ImportOptions], list[Imported]]


def _read_xla(paths: Sequence[str], options: ImportOptions) -> list[Imported]:
    from tilefit.formats.xla import read_dumps

    return read_dumps(paths, options)


TOOLCHAINS: dict[str, Toolchain] = {
    "xla": Toolchain(
        "xla",
        "XLA's buffer assignment, from XLA_FLAGS=--xla_dump_to=DIR (JAX, TensorFlow, PyTorch/XLA)",
        _read_xla,
    ),
}


def at_own_heap(capture: Capture) -> Capture:
    """The capture in exactly the memory its toolchain used (``--capacity`` undone)."""
    if capture.origin is None or capture.memory.size == capture.origin.heap:
        return capture
    heap = capture.origin.heap
    return replace(capture, memory=Memory(heap, (Range(0, heap, capture.memory.ranges[0].name),)))
