"""TPU-MLIR's tools, run from its own venv (Python 3.10: tilefit never imports it).

The venv is named by ``TILEFIT_TPUMLIR_VENV`` (or given). Its tools run with that venv's
``bin`` first on the PATH and one OpenMP thread (TPU-MLIR sets 4, and its trace lines
then interleave). A venv that is missing, or whose tools die before they start (the
bundled glibc of the wheel on a newer host: see .ci/tpumlir), is bad input naming the
venv and what to do.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tilefit.formats.save import atomic_path
from tilefit.model.errors import InputError

VENV_VARIABLE = "TILEFIT_TPUMLIR_VENV"
_GLIBC = "GLIBC_2."


@dataclass(frozen=True, slots=True)
class Venv:
    """TPU-MLIR's venv: where its Python and its console scripts live."""

    root: Path

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    def tool(self, name: str) -> Path:
        return self.bin / name

    def environment(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment TPU-MLIR's tools run in: its bin first, one OpenMP thread."""
        env = dict(os.environ if base is None else base)
        env["PATH"] = f"{self.bin}{os.pathsep}{env.get('PATH', '')}"
        env["VIRTUAL_ENV"] = str(self.root)
        env["OMP_NUM_THREADS"] = "1"
        return env


def find_venv(given: str | None = None, env: Mapping[str, str] | None = None) -> Venv:
    """The venv given, else the one ``TILEFIT_TPUMLIR_VENV`` names; checked to hold the
    tools (``tpuc-opt``, ``model_deploy``)."""
    environment = os.environ if env is None else env
    where = given or environment.get(VENV_VARIABLE)
    if not where:
        raise InputError(
            "",
            f"no TPU-MLIR venv: set {VENV_VARIABLE} to one (bash .ci/tpumlir makes it, "
            "Python 3.10 with tpu-mlir==1.30.2)",
        )
    venv = Venv(Path(where))
    for name in ("python", "tpuc-opt", "model_deploy"):
        if not venv.tool(name).exists():
            raise InputError(
                str(venv.root),
                f"not a TPU-MLIR venv: no bin/{name} (bash .ci/tpumlir makes one)",
            )
    return venv


def run(
    venv: Venv, command: Sequence[str], folder: Path, log: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run one TPU-MLIR command in ``folder`` (its output into ``log`` when given, as
    the allocator's trace must be). A failure is an error naming the command and its
    last words; one that never started for the bundled glibc says so."""
    program = str(venv.tool(command[0]))
    if log is None:
        done = subprocess.run(
            [program, *command[1:]],
            cwd=folder,
            env=venv.environment(),
            capture_output=True,
            text=True,
            errors="replace",
        )
        said = done.stdout + done.stderr
    else:
        # the trace is written whole or not at all: a run cut short leaves no trace to misread
        with atomic_path(log) as temp, temp.open("w") as out:
            done = subprocess.run(
                [program, *command[1:]],
                cwd=folder,
                env=venv.environment(),
                stdout=out,
                stderr=subprocess.STDOUT,
                text=True,
                errors="replace",
            )
        said = log.read_text(errors="replace")
    if done.returncode != 0:
        raise InputError(str(venv.root), _failure(command[0], said, done.returncode))
    return done


def _failure(name: str, said: str, code: int) -> str:
    if _GLIBC in said and "not found" in said:
        return (
            f"{name} did not start: the wheel's bundled glibc is older than this host's "
            "(rename tpu_mlir/lib/third_party/libc.so.6, libm.so.6 and libpthread.so.0: "
            "bash .ci/tpumlir does it)"
        )
    lines = [line for line in said.strip().splitlines() if line.strip()]
    last = lines[-1].strip() if lines else "no output"
    return f"{name} failed (exit {code}): {last}"
