"""The packs of a program or dump, each static transient one made a capture.

Every pack is said: a static pack of a transient slab becomes a capture with
IREE's layout as its placement; a pack with a dynamic size, of another
resource, or from a base offset is skipped with its reason, never guessed.
IREE's slab is confirmed against the module after the pass where the dump has
it: the transient ``stream.resource.alloca`` the pack sized, then sized by a
constant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tilefit.model.errors import InputError
from tilefit.toolchains.base import Imported, Skipped
from tilefit.toolchains.iree.capture import Alignment, capture_name, make_capture
from tilefit.toolchains.iree.dump import Section
from tilefit.toolchains.iree.locations import aliases
from tilefit.toolchains.iree.mlir import Function, functions, index_constants
from tilefit.toolchains.iree.module import Stages
from tilefit.toolchains.iree.packs import Pack, packs
from tilefit.toolchains.iree.uses import slice_uses

_TRANSIENT = re.compile(r"stream\.resource\.alloca\b[^\n]*!stream\.resource<transient>\{([^}]*)\}")


@dataclass(frozen=True, slots=True)
class Found:
    """One pack op, with the text of the function it is in."""

    pack: Pack
    text: str  # the module's (or the function's) text
    function: Function
    line: int  # the pack's line in the dump (0: IREE's dump of a program, not the user's)


def found_packs(stages: Stages) -> list[Found]:
    """Every pack of the module before the pass, function by function."""
    chosen = stages.before[:1] if stages.module_scope else stages.before
    found: list[Found] = []
    for section in chosen:
        text = section.text
        shift = 0 if stages.from_program else section.line
        for function in functions(text):
            found += [
                Found(p, text, function, shift and shift + p.line - 1)
                for p in packs(text, function)
            ]
    return found


def read_packs(
    stages: Stages, stem: str, where: str, alignment: Alignment, capacity: int | None
) -> tuple[list[Imported], list[Skipped]]:
    """The static transient packs as captures; the others said and skipped."""
    imported: list[Imported] = []
    skipped: list[Skipped] = []
    for item in found_packs(stages):
        pack = item.pack
        name = capture_name(stem, pack)
        line = f"line {item.line}, " if item.line else ""
        place = f"{where} ({line}@{pack.function}, pack {pack.name})"
        reason = _unplanned(pack)
        if reason is not None:
            skipped.append(Skipped(place, reason))
            continue
        body = item.text[item.function.start : item.function.end]
        uses = slice_uses(body, pack.name, len(pack.slices), aliases(item.text))
        source = f"{where}{f':{item.line}' if item.line else ''} @{pack.function} {pack.name}"
        capture, placement, layout = make_capture(name, pack, uses, source, alignment, capacity)
        notes = tuple(_confirmed(stages, item, layout.slab))
        imported.append(Imported(capture, placement, where, len(pack.slices), notes))
    return imported, skipped


def _unplanned(pack: Pack) -> str | None:
    """Why a pack is not imported (None: it is)."""
    if not pack.slices:
        return "a pack with no slice"
    if pack.dynamic:
        dynamic = sum(1 for s in pack.slices if s.size is None)
        return (
            f"{dynamic} of its {len(pack.slices)} slices have sizes known only at run time "
            "(IREE packs those conservatively when the program runs): not guessed"
        )
    if pack.lifetime != "transient":
        if pack.lifetime is None:
            return "no allocation of its slab is seen: not a transient slab"
        return f"its slab is a resource of lifetime {pack.lifetime}, not a transient one"
    if pack.offset is not None:
        return f"it packs from a base offset ({pack.offset}), not from 0"
    return None


def _confirmed(stages: Stages, item: Found, slab: int) -> list[str]:
    """Nothing when IREE's compiler gave this pack's slab the size reproduced; else why not."""
    after = _after_function(stages.after, item.pack.function, stages.module_scope)
    if after is None:
        return ["the dump holds no module after the pass: IREE's slab is reproduced, unconfirmed"]
    text, function = after
    position = _alloca_position(item)
    body = text[function.start : function.end]
    sizes = [m.group(1).strip() for m in _TRANSIENT.finditer(body)]
    if position is None or position >= len(sizes):
        return ["IREE's transient allocation is not found after the pass: slab unconfirmed"]
    given = index_constants(body).get(sizes[position])
    if given is None:
        return [f"IREE sizes the slab with {sizes[position]}, not a constant: slab unconfirmed"]
    if given != slab:
        raise InputError(
            f"line {item.line}" if item.line else f"@{item.pack.function}",
            f"IREE's compiler gives pack {item.pack.name} a slab of {given:,} B, the packer "
            f"reproduced here {slab:,} B: this IREE packs differently (or its alignment is "
            "not the one assumed); nothing imported",
        )
    return []


def _alloca_position(item: Found) -> int | None:
    body = item.text[item.function.start : item.function.end]
    for i, match in enumerate(_TRANSIENT.finditer(body)):
        if match.group(1).strip() == f"{item.pack.name}#0":
            return i
    return None


def _after_function(
    after: tuple[Section, ...], name: str, module_scope: bool
) -> tuple[str, Function] | None:
    for section in after:
        if module_scope and section.function != name:
            continue
        for function in functions(section.text):
            if function.name == name:
                return section.text, function
    return None
