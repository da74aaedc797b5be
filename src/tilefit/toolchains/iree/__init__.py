"""IREE: the transient slabs its compiler packs, in as captures and (later) out again.

- ``compiler``: ``iree-compile`` and ``iree-opt`` run as programs, the user's flags passed;
- ``dump``: the sections of a ``--mlir-print-ir-before=iree-stream-layout-slices`` dump;
- ``module``: a program or a dump, read to the module before and after that pass;
- ``mlir``: the little of printed MLIR read here (functions, index constants);
- ``packs``: the ``stream.resource.pack`` ops, their slices and slabs;
- ``uses``: which command of an execution region writes and reads each slice;
- ``greedy``: IREE's ``packStaticSlicesGreedily`` reimplemented;
- ``capture``: one static transient pack as a capture, IREE's layout as its placement;
- ``reading``: every pack of a module said, the static transient ones imported.

docs/iree.md says what each rule rests on in IREE's own code.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tilefit.model.errors import InputError
from tilefit.model.placement import Placement
from tilefit.toolchains.base import (
    Exported,
    ExportOptions,
    Imported,
    ImportOptions,
    Reading,
    Skipped,
    Toolchain,
    files_named,
)
from tilefit.toolchains.iree.capture import ALLOCATOR, Alignment
from tilefit.toolchains.iree.compiler import Flags
from tilefit.toolchains.iree.module import read_stages
from tilefit.toolchains.iree.reading import read_packs

SUFFIXES = (".mlir", ".mlirbc")
_ALIGNMENT_FLAG = "--iree-stream-resource-min-offset-alignment="


def alignment_of(flags: Flags, given: int | None = None) -> Alignment:
    """IREE's resource alignment under the user's flags (64 unless a flag says otherwise)."""
    value = Alignment().offset
    for flag in flags.given:
        if flag.startswith(_ALIGNMENT_FLAG):
            text = flag[len(_ALIGNMENT_FLAG) :]
            if not text.isdigit() or int(text) < 1:
                raise InputError("--flag", f"{flag}: the alignment is a positive integer")
            value = int(text)
    if given is not None and given != value:
        raise InputError(
            "--alignment",
            f"IREE aligns this program's slices to {value} B; its flag "
            f"{_ALIGNMENT_FLAG}N (passed with --flag) changes that",
        )
    return Alignment(value, value)


def read_programs(paths: Sequence[str], options: ImportOptions) -> Reading:
    """Every program or dump the paths name: one capture per static transient pack."""
    flags = Flags(options.flags)
    alignment = alignment_of(flags, options.alignment)
    imported: list[Imported] = []
    skipped: list[Skipped] = []
    for path in _files(paths):
        stages = read_stages(path, flags)
        found, left = read_packs(stages, path.stem, str(path), alignment, options.capacity)
        if not found and not left:
            skipped.append(Skipped(str(path), "no stream.resource.pack op: nothing to plan"))
        imported += found
        skipped += left
    return Reading(imported, skipped)


def _files(paths: Sequence[str]) -> list[Path]:
    """Files as given (a dump may have any name); folders searched for ``.mlir`` programs."""
    return files_named(paths, SUFFIXES[0])


def _export(program: Path, placements: Sequence[Placement], options: ExportOptions) -> Exported:
    from tilefit.toolchains.iree.export import export_plans

    return export_plans(program, placements, options)


def _claims(path: Path) -> bool:
    return False  # a batch folder's .mlir files are not all IREE programs: import them by name


TOOLCHAIN = Toolchain(
    name="iree",
    tool=ALLOCATOR.tool,
    summary="IREE's transient slabs (stream.resource.pack), from a program it compiles or "
    "a --mlir-print-ir-before=iree-stream-layout-slices dump (needs the iree extra)",
    plan=ALLOCATOR.plan,
    read=read_programs,
    claims=_claims,
    export=_export,
    adopt="export it: tilefit export iree PROGRAM {placement} -o OUT.vmfb",
    unit="slice",
    whole="program",
)

__all__ = ["SUFFIXES", "TOOLCHAIN", "alignment_of", "read_programs"]
