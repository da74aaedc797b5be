"""The files of one HLO module in an ``--xla_dump_to`` folder.

XLA names each file ``module_NNNN.NAME.PLATFORM_after_optimizations-KIND.txt``
(PLATFORM ``cpu``, ``sm_8.0_gpu``, ...). A module is found by its buffer
assignment; its live ranges are the ``-live-range.txt`` beside it, or, in XLA
versions before that file existed, a section of the buffer assignment itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tilefit.model.errors import InputError

ASSIGNMENT_SUFFIX = "-buffer-assignment.txt"
LIVE_RANGE_SUFFIX = "-live-range.txt"
# The other files XLA writes beside them, so that any file of a module names it.
_MODULE_SUFFIXES = (
    ASSIGNMENT_SUFFIX,
    LIVE_RANGE_SUFFIX,
    "-buffer-assignment-values.txt",
    "-memory-usage-report.txt",
)
_STEM = re.compile(
    r"^(?P<module>.+?)\.(?P<platform>(?:[a-z]+_[0-9.]+_)?(?P<backend>[a-z]+))_after_optimizations$"
)


@dataclass(frozen=True, slots=True)
class Module:
    """One HLO module's dump: its name (``module_0012.jit_loss``) and files."""

    name: str
    backend: str  # "cpu", "gpu", ...
    assignment: Path
    live_range: Path | None  # None: the live ranges are inside the assignment file
    hlo: Path | None = None  # the module's HLO text (what made each value, and where)

    @property
    def live_ranges_file(self) -> Path:
        """The file that holds the live ranges."""
        return self.live_range or self.assignment


def module_of(path: Path) -> Module:
    """The module a dump file belongs to; InputError when the name is not XLA's."""
    stem = next((path.name[: -len(s)] for s in _MODULE_SUFFIXES if path.name.endswith(s)), None)
    match = _STEM.match(stem) if stem is not None else None
    if stem is None or match is None:
        raise InputError(
            "",
            "not a file of an XLA dump: expected MODULE.PLATFORM_after_optimizations"
            f"{ASSIGNMENT_SUFFIX} (from XLA_FLAGS=--xla_dump_to=DIR)",
            str(path),
        )
    folder = path.parent
    assignment = folder / f"{stem}{ASSIGNMENT_SUFFIX}"
    if not assignment.is_file():
        raise InputError("", f"no buffer assignment beside it ({assignment.name})", str(path))
    live_range = folder / f"{stem}{LIVE_RANGE_SUFFIX}"
    hlo = folder / f"{stem}.txt"
    return Module(
        match["module"],
        match["backend"],
        assignment,
        live_range if live_range.is_file() else None,
        hlo if hlo.is_file() else None,
    )


def find_modules(paths: list[str]) -> list[Module]:
    """Every module named by the paths (dump folders, searched recursively, or files), once each."""
    seen: set[Path] = set()
    out: list[Module] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            files = sorted(path.rglob(f"*{ASSIGNMENT_SUFFIX}"))
            if not files:
                raise InputError(
                    "", f"no *{ASSIGNMENT_SUFFIX} in this folder: is it an XLA dump?", given
                )
        elif path.is_file():
            files = [path]
        else:
            raise InputError("", "no such file or folder", given)
        for file in files:
            module = module_of(file)
            if module.assignment.resolve() not in seen:
                seen.add(module.assignment.resolve())
                out.append(module)
    return out
