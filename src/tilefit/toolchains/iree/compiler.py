"""IREE's compiler tools (``iree-compile``, ``iree-opt``: the ``iree`` extra), run as programs.

A refusal becomes bad input in IREE's own words: its first ``error:`` line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tilefit.model.errors import InputError

# llvm-cpu for the host, unless the user's flags name a target of their own
HOST = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
)
_TARGETS = ("--iree-hal-target-device", "--iree-hal-target-backends")
DUMP = (
    "--compile-to=stream",
    "--mlir-print-ir-before=iree-stream-layout-slices",
    "--mlir-print-ir-after=iree-stream-layout-slices",
    "--mlir-print-ir-module-scope",
    "--mlir-disable-threading",
)


@dataclass(frozen=True, slots=True)
class Flags:
    """The user's own flags for IREE's compiler, passed through to every run."""

    given: tuple[str, ...] = ()

    @property
    def compile(self) -> tuple[str, ...]:
        """What every ``iree-compile`` run gets: the host's target unless one is named."""
        named = any(f.startswith(_TARGETS) for f in self.given)
        return self.given if named else (*HOST, *self.given)

    @property
    def stream(self) -> tuple[str, ...]:
        """The flags ``iree-opt`` understands when it finishes the stream phase."""
        return tuple(f for f in self.given if f.startswith("--iree-stream-"))


def tool(name: str) -> str:
    """The path of an IREE tool: beside this Python first (a venv's bin), then on PATH."""
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which(name)
    if found is None:
        raise InputError(
            "",
            f"{name} not found: install IREE's compiler (pip install 'tilefit[iree]', "
            "iree-base-compiler)",
        )
    return found


def run_tool(name: str, arguments: Sequence[str], where: str) -> subprocess.CompletedProcess[str]:
    """Run an IREE tool; a refusal is bad input naming ``where`` and IREE's first error."""
    done = subprocess.run(
        [tool(name), *arguments], capture_output=True, text=True, errors="replace", check=False
    )
    if done.returncode != 0:
        raise InputError("", f"{name} refuses it: {first_error(done.stderr)}", where)
    return done


def first_error(stderr: str) -> str:
    """IREE's first error line (``file:line:col: error: ...``), or its first line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if "error:" in line:
            return line
    return lines[0] if lines else "no message"


def dump(program: Path, flags: Flags) -> str:
    """IREE's module before and after its packing pass (the stream phase's end)."""
    where = str(program)
    done = run_tool("iree-compile", [str(program), *flags.compile, *DUMP, "-o", os.devnull], where)
    return done.stderr
