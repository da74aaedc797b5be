"""TFLM's own interpreter (tflite-micro's Python package), run in a child process.

It reports what the runtime itself allocates (``print_allocations``: the
arena's head, the non-persistent plan; its tail, persistent; their total,
the ``tensor_arena_size`` a user must give) and the outputs of a stream of
invocations on the same inputs, for comparing two plans bit for bit. A
child process, because the interpreter trusts the model: a broken one may
end the process that runs it.

Inputs are drawn by a seeded generator from a window that sweeps an integer
input's whole range over the invocations (an eighth of the range wide,
``child._input``): a
streaming wake-word model gives constant outputs on noise around one level,
and a comparison on constant outputs would prove nothing.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tilefit.model.errors import InputError
from tilefit.toolchains.tflm.schema import EXTRA

_LINE = re.compile(r"Arena allocation (total|head|tail) (\d+) bytes")
_CHILD = "tilefit.toolchains.tflm.child"


@dataclass(frozen=True)
class Run:
    """What the interpreter did with one model."""

    head: int  # the planned, non-persistent section
    tail: int  # persistent: not part of any plan
    total: int  # the tensor_arena_size it needed
    outputs: dict[str, Any]  # "INVOCATION.OUTPUT" -> array
    refused: str | None = None  # an invocation failed: what TFLM said (its arena still planned)

    def same_outputs(self, other: Run) -> bool:
        """Every output of every invocation equal, bit for bit."""
        if self.outputs.keys() != other.outputs.keys():
            return False
        return all(
            self.outputs[k].dtype == other.outputs[k].dtype
            and self.outputs[k].shape == other.outputs[k].shape
            and self.outputs[k].tobytes() == other.outputs[k].tobytes()
            for k in self.outputs
        )

    @property
    def varies(self) -> bool:
        """Outputs differ between invocations: a comparison of them can tell plans apart."""
        values = [a.tobytes() for a in self.outputs.values()]
        return len(set(values)) > 1


def _why(done: subprocess.CompletedProcess[str]) -> str:
    """TFLM's own reason, in its words: the first and the last line it printed before
    Python's traceback (its cause, "Didn't find op for builtin opcode 'DENSIFY'", and
    what failed of it), then the exception's message without its class; never a line of
    the traceback (a Python source line is no reason)."""
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    start = next((i for i, line in enumerate(lines) if line.startswith("Traceback")), None)
    own = lines if start is None else lines[:start]
    said = list(dict.fromkeys(own[:1] + own[-1:]))
    if start is not None and lines[-1] not in said:
        said.append(lines[-1].split(": ", 1)[-1])  # "RuntimeError: TFLM failed to ..."
    return "; ".join(line.rstrip(".") for line in said) or f"exit {done.returncode}"


def available() -> bool:
    """tflite-micro is installed."""
    from importlib.util import find_spec

    return find_spec("tflite_micro") is not None


def run_model(
    data: bytes, where: str, *, invocations: int = 1, seed: int = 0, head: int = 0
) -> Run:
    """Run the model in TFLM's interpreter; InputError when it cannot.

    ``head``, the largest head a plan of the model may need (its top), sizes the
    arena given to the interpreter, which it needs whole before it runs anything.
    """
    if not available():
        raise InputError("", f"running a model needs tflite-micro, not installed: {EXTRA}", where)
    size = head + 16 * len(data) + (8 << 20)  # the tail grows with the model, not its tensors
    with tempfile.TemporaryDirectory(prefix="tilefit-tflm-") as folder:
        model = Path(folder) / "model.tflite"
        model.write_bytes(data)
        out = Path(folder) / "outputs.npz"
        args = [str(model), str(size), str(invocations), str(seed), str(out)]
        done = subprocess.run(
            [sys.executable, "-m", _CHILD, *args], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise InputError("", f"TFLM's interpreter refused the model: {_why(done)}", where)
        report = json.loads(done.stdout.strip().splitlines()[-1])
        found = {kind: int(value) for kind, value in _LINE.findall(report["allocations"])}
        with np.load(out) as saved:
            outputs = {k: saved[k] for k in saved.files}
    if set(found) != {"total", "head", "tail"}:
        raise InputError("", "TFLM's interpreter did not report its arena", where)
    failed = report["invoke_error"]
    refused = None if failed is None else " ".join(failed.split())
    return Run(found["head"], found["tail"], found["total"], outputs, refused)
