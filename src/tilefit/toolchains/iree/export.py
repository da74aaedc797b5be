"""tilefit's plans into an IREE program: refereed on its packs' own captures, then compiled.

Each placement names its capture (``PROGRAM.FUNCTION.N``, as ``tilefit import
iree`` wrote it); nothing is written unless the referee accepts it on the
capture the program itself makes. Every static transient pack is then
replaced by constants (tilefit's offsets, or IREE's own where no placement is
given), the stream phase finished and the module compiled; the module with
IREE's own offsets is compiled the same way, and with the runtime both run on
the same inputs, every output compared bit for bit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from tilefit.model.capture import Capture
from tilefit.model.errors import InputError
from tilefit.model.placement import Placement, placement_top
from tilefit.toolchains.base import Exported, ExportOptions, Imported, Part, RuntimeCheck, Sizes
from tilefit.toolchains.iree.capture import capture_name, slice_index
from tilefit.toolchains.iree.compiler import Flags, finish
from tilefit.toolchains.iree.greedy import align
from tilefit.toolchains.iree.module import read_stages
from tilefit.toolchains.iree.reading import Found, found_packs, read_packs
from tilefit.toolchains.iree.rewrite import Written, with_offsets

_TRANSIENT = re.compile(r"stream\.resource\.alloca\b[^\n]*!stream\.resource<transient>\{([^}]*)\}")
_CONSTANT = re.compile(r"^\s*(%[\w$.-]+) = arith\.constant (\d+) : index", re.M)


def export_plans(
    program: Path, placements: Sequence[Placement], options: ExportOptions
) -> Exported:
    """The program compiled with the placements as its packs' offsets; InputError when
    one may not be written."""
    from tilefit.toolchains.iree import alignment_of

    where = str(program)
    flags = Flags(options.flags)
    alignment = alignment_of(flags)
    options.watch.stage(f"iree-compile: reading {program.name}'s packs")
    stages = read_stages(program, flags, module_scope=True)
    if not stages.module_scope:
        raise InputError(
            "",
            "export needs the whole module: a program, or a dump made with "
            "--mlir-print-ir-module-scope",
            where,
        )
    imported, _ = read_packs(stages, program.stem, where, alignment, None)
    captures = {item.capture.name: item for item in imported}
    given = _accepted(placements, captures, where)
    written: list[Written] = []
    parts: list[Part] = []
    for item in found_packs(stages):
        name = capture_name(program.stem, item.pack)
        if name not in captures:
            continue
        own = captures[name]
        offsets = given.get(name, own.placement).offsets
        values = pack_values(item, own.capture, offsets, alignment.range)
        written.append(Written(item.pack, item.function, values))
        heap = placement_top(own.capture, own.placement.offsets)
        parts.append(Part(name, len(own.capture.requests), align(heap, alignment.range), values[0]))
    if not written:
        raise InputError("", "no static transient pack in it: nothing to export", where)
    module = stages.before[0].text
    edited = with_offsets(module, written)
    options.watch.stage("iree-compile: the module with IREE's own layout")
    own_stream, own_vmfb = finish(module, flags, where)
    options.watch.stage("iree-compile: the module with these offsets")
    new_stream, new_vmfb = finish(edited, flags, where)
    before = sum(p.before for p in parts)
    after = sum(p.after for p in parts)
    checked = None
    if options.run:
        options.watch.stage("IREE's runtime: both modules on the same inputs")
        slabs = Sizes(transient_slabs(own_stream), transient_slabs(new_stream))
        checked = _run_both(own_vmfb, new_vmfb, where, options.inputs, slabs)
    requests = sum(p.requests for p in parts)
    return Exported(new_vmfb, before, after, requests, checked, tuple(parts))


def _accepted(
    placements: Sequence[Placement], captures: dict[str, Imported], where: str
) -> dict[str, Placement]:
    """Each placement by its pack's capture, once the toolchain accepts it there."""
    from tilefit.toolchains.iree import TOOLCHAIN

    given: dict[str, Placement] = {}
    for placement in placements:
        item = captures.get(placement.capture)
        if item is None:
            known = ", ".join(sorted(captures)) or "none"
            raise InputError(
                "capture",
                f"names {placement.capture}, not a pack of {Path(where).name} (its packs: "
                f"{known}): a placement of another program?",
            )
        if placement.capture in given:
            raise InputError("capture", f"two placements of {placement.capture}: give one")
        TOOLCHAIN.accept(item.capture, placement, placement.capture)
        given[placement.capture] = placement
    return given


def pack_values(
    item: Found, capture: Capture, offsets: Mapping[str, int], range_alignment: int
) -> tuple[int, ...]:
    """The pack's results: the slab (the placement's top, rounded up to the range
    alignment as IREE rounds it), then each slice's offset."""
    by_slice = {slice_index(k): v for k, v in offsets.items()}
    slab = align(placement_top(capture, offsets), range_alignment)
    return (slab, *(by_slice[s.index] for s in item.pack.slices))


def transient_slabs(stream: str) -> int:
    """The bytes of the transient allocations a finished stream module makes with constant
    sizes: what the compiled module allocates for its slabs."""
    constants = {m.group(1): int(m.group(2)) for m in _CONSTANT.finditer(stream)}
    return sum(constants.get(m.group(1).strip(), 0) for m in _TRANSIENT.finditer(stream))


def _run_both(own: bytes, new: bytes, where: str, inputs: str | None, slabs: Sizes) -> RuntimeCheck:
    """Both modules run on the same inputs; the memory is the modules' transient slabs
    (IREE's runtime reports none of its own)."""
    from tilefit.toolchains.iree.runtime import load_inputs, run_module

    given = None if inputs is None else load_inputs(inputs)
    before = run_module(own, where, given)
    after = run_module(new, where, given)
    calls = len(before.calls)
    varies = len({call for call in before.calls}) > 1
    return RuntimeCheck(slabs, None, calls, before == after, varies)
