"""What every toolchain gives: its plans in as captures, each with its own placement.

A toolchain is one subpackage of ``tilefit.toolchains`` whose ``TOOLCHAIN``
(a ``Toolchain``) says how to read the files a user names. The registry
(``tilefit.toolchains.TOOLCHAINS``) names them; nothing else branches on a
toolchain's name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tilefit.model.capture import Capture
from tilefit.model.placement import Placement
from tilefit.verdicts.watch import QUIET, Watch


def files_named(paths: Sequence[str], suffix: str) -> list[Path]:
    """The files the paths name: files as given, folders searched recursively for
    ``suffix`` (hidden entries left out); each file once, in the order found."""
    from tilefit.model.errors import InputError

    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found += sorted(
                p
                for p in path.rglob(f"*{suffix}")
                if p.is_file() and not any(s.startswith(".") for s in p.relative_to(path).parts)
            )
        elif path.is_file():
            found.append(path)
        else:
            raise InputError("", "no such file or folder", given)
    unique: dict[Path, Path] = {}
    for path in found:
        unique.setdefault(path.resolve(), path)
    return list(unique.values())


@dataclass(frozen=True, slots=True)
class ImportOptions:
    capacity: int | None = None  # the memory to ask about (default: the toolchain's own heap)
    alignment: int | None = None  # overrides the toolchain's known heap alignment
    flags: tuple[str, ...] = ()  # passed through to the toolchain's compiler (IREE's)


@dataclass(frozen=True)
class Imported:
    """One capture made from a toolchain's plan, with the toolchain's placement of it."""

    capture: Capture
    placement: Placement  # the toolchain's own offsets
    source: str  # the file it came from
    values: int  # the toolchain's buffers behind the requests (more where several share one)
    notes: tuple[str, ...] = ()  # what the import could not see or confirm, one line each


@dataclass(frozen=True, slots=True)
class Skipped:
    """An input with nothing to plan (no temp heap, no tensor in the arena): not an error."""

    source: str
    reason: str


@dataclass(frozen=True)
class Reading:
    """What one read of a toolchain's inputs gave: captures, and inputs with nothing to plan."""

    imported: list[Imported]
    skipped: list[Skipped] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class RuntimeCheck:
    """The toolchain's runtime run with its own plan and with the exported one."""

    head_before: int  # the planned section as the runtime reports it
    head_after: int
    total_before: int  # everything the runtime needed (what a user must give)
    total_after: int
    invocations: int  # on the same inputs
    identical: bool  # every output of every invocation equal, bit for bit
    varies: bool  # the outputs differ between invocations: the comparison can tell plans apart


@dataclass(frozen=True, slots=True)
class Part:
    """One plan of several in a file (an IREE pack): its top before and after."""

    name: str  # its capture's name
    requests: int
    before: int
    after: int


@dataclass(frozen=True)
class Exported:
    """A placement written back into the toolchain's own file, refereed first."""

    data: bytes  # the file as written
    before: int  # the top of the toolchain's own plan (several plans: their sum)
    after: int  # the top of the placement written
    requests: int
    runtime: RuntimeCheck | None  # None: not run
    parts: tuple[Part, ...] = ()  # each plan's, where the file holds several


@dataclass(frozen=True, slots=True)
class ExportOptions:
    run: bool = True  # run the runtime on both and compare the outputs
    flags: tuple[str, ...] = ()  # passed through to the toolchain's compiler (IREE's)
    inputs: str | None = None  # the inputs to run on (IREE: an .npz of arrays); None: seeded
    watch: Watch = QUIET  # hears each step that takes a while (a progress line, on a terminal)


# (the toolchain's input file, the placements, the options) -> what to write
Export = Callable[[Path, Sequence[Placement], ExportOptions], Exported]


@dataclass(frozen=True, slots=True)
class Toolchain:
    """One compiler or runtime whose memory plans tilefit reads."""

    name: str  # the word after ``tilefit import``
    tool: str  # how answers name its plan ("XLA's heap", "TFLM's head")
    summary: str
    plan: str  # what its plan is called: "heap", "head"
    read: Callable[[Sequence[str], ImportOptions], Reading]
    claims: Callable[[Path], bool]  # a file that batch imports with it when found in a folder
    export: Export | None = None  # writes a placement back (None: this toolchain cannot)
    # How a user puts tilefit's plan into the toolchain, as the two-part answer names it
    # ("{placement}": the placement's file); None: the toolchain takes no plan back.
    adopt: str | None = None
