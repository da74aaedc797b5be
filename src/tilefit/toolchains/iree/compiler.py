"""IREE's compiler tools (``iree-compile``, ``iree-opt``: the ``iree`` extra), run as programs.

A refusal becomes bad input in IREE's own words: its first ``error:`` line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
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
    "--mlir-disable-threading",
    "--mlir-print-debuginfo",  # the source locations that label each slice
)
# the import reads each function alone (small: no constant's data) before and after the
# pass; the export needs the whole module before it, constants and all
IMPORT_DUMP = (*DUMP, "--mlir-print-ir-after=iree-stream-layout-slices")
EXPORT_DUMP = (*DUMP, "--mlir-print-ir-module-scope")


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


def run_tool(
    name: str, arguments: Sequence[str], where: str, folder: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run an IREE tool (in ``folder``); a refusal is bad input naming ``where`` and IREE's
    first error."""
    done = subprocess.run(
        [tool(name), *arguments],
        capture_output=True,
        text=True,
        errors="replace",
        check=False,
        cwd=folder,
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


def dump(program: Path, flags: Flags, module_scope: bool = False) -> str:
    """IREE's functions before and after its packing pass (the stream phase's end), or with
    ``module_scope`` the whole module before it."""
    where = str(program)
    printing = EXPORT_DUMP if module_scope else IMPORT_DUMP
    arguments = [str(program), *flags.compile, *printing, "-o", os.devnull]
    return run_tool("iree-compile", arguments, where).stderr


# What follows the packing pass in IREE's stream phase: finishes a module edited before it.
FINISH = (
    "--pass-pipeline=builtin.module(iree-stream-cmd-transformation-pipeline,"
    "iree-stream-optimization-pipeline,iree-stream-cleanup-pipeline,symbol-dce)"
)


def finish(module: str, flags: Flags, where: str) -> tuple[str, bytes]:
    """A module from before the packing pass, compiled: the stream phase finished by
    ``iree-opt`` (the user's stream flags repeated), then ``iree-compile
    --compile-from=stream``. The files have the same names on every call, in a folder of
    their own, so that the same module gives the same bytes (IREE writes the file's name
    into the executables' debug information)."""
    with tempfile.TemporaryDirectory(prefix="tilefit-iree-") as folder:
        (Path(folder) / "module.mlir").write_text(module)
        run_tool(
            "iree-opt", [FINISH, *flags.stream, "module.mlir", "-o", "stream.mlir"], where, folder
        )
        run_tool(
            "iree-compile",
            ["stream.mlir", "--compile-from=stream", *flags.compile, "-o", "module.vmfb"],
            where,
            folder,
        )
        return (Path(folder) / "stream.mlir").read_text(), (
            Path(folder) / "module.vmfb"
        ).read_bytes()
