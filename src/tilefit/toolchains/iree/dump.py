"""IREE's IR dumps: the module as it stands before and after its packing pass.

``iree-compile --mlir-print-ir-before=iree-stream-layout-slices`` prints one
section per function the pass runs on, each headed ``// -----// IR Dump Before
LayoutSlicesPass: iree-stream-layout-slices ...``; with
``--mlir-print-ir-module-scope`` each section is the whole module. The pass runs
more than once in IREE's pipeline (the last run packs the transients), and with
module scope a function's section shows the functions before it already packed,
so the module to read is the first section of the last run: there every
function still has its packs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tilefit.model.errors import InputError

PASS = "iree-stream-layout-slices"
HEADER = re.compile(r"^// -----// IR Dump (Before|After) (\S+): (\S+)(.*?)//----- //[ \t]*$", re.M)
_TARGET = re.compile(r"\('[\w.]+' operation: @?([^)]*)\)")
# a section of one function (no module scope): its header names no function, its text does
_OWN = re.compile(r"\A\s*(?:util\.func|func\.func)\b[^@\n]*@([\w$.-]+)")


@dataclass(frozen=True, slots=True)
class Section:
    """One printed section of a dump: before or after the pass, on one function."""

    when: str  # "Before" or "After"
    function: str  # the function the pass ran on ("" when the header does not say)
    text: str
    line: int  # its first line in the dump (1-based), for messages


def sections(text: str, where: str) -> list[Section]:
    """Every section of the packing pass in a dump; bad input when there is none."""
    found: list[Section] = []
    heads = list(HEADER.finditer(text))
    if not heads:
        raise InputError(
            "", f"not an IR dump of IREE's {PASS} pass (no '// -----// IR Dump' header)", where
        )
    passes = {h.group(3) for h in heads}
    if PASS not in passes:
        shown = ", ".join(sorted(passes)[:3])
        raise InputError(
            "line 1",
            f"the dump names no {PASS} pass (it names {shown}): an IREE version whose pass "
            "names differ, or a dump of another pass",
            where,
        )
    for i, head in enumerate(heads):
        if head.group(3) != PASS:
            continue
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        target = _TARGET.search(head.group(4))
        body = text[head.end() : end]
        own = _OWN.search(body)
        name = target.group(1) if target else (own.group(1) if own else "")
        line = text.count("\n", 0, head.start()) + 1
        found.append(Section(head.group(1), name, body, line))
    return found


def last_run(found: list[Section], when: str) -> list[Section]:
    """The sections of the pass's last run: the trailing ones naming each function once."""
    chosen = [s for s in found if s.when == when]
    seen: set[str] = set()
    run: list[Section] = []
    for section in reversed(chosen):
        if section.function in seen:
            break
        seen.add(section.function)
        run.append(section)
    return run[::-1]
