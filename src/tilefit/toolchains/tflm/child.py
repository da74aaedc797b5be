"""The child process that runs one model in TFLM's interpreter (``runtime.run_model``).

``python -m tilefit.toolchains.tflm.child MODEL ARENA INVOCATIONS SEED OUT``:
the outputs of every invocation go to OUT (``.npz``, ``INVOCATION.OUTPUT``),
and one JSON line on stdout carries what ``print_allocations`` wrote (the
arena is planned when the interpreter is made) and, when an invocation
failed, what TFLM said about it.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any

import numpy as np


def _counts(data: bytes) -> tuple[int, int]:
    """The main subgraph's inputs and outputs, from the model itself."""
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as fb

    graph = fb.Model.GetRootAs(data, 0).Subgraphs(0)
    return graph.InputsLength(), graph.OutputsLength()


def _input(detail: Any, step: int, invocations: int, rng: np.random.Generator) -> Any:
    """A window that sweeps an integer input's whole range over the invocations."""
    dtype = np.dtype(detail["dtype"])
    shape = detail["shape"]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low, width = int(info.min), int(info.max) - int(info.min)
        centre = low + (2 * step + 1) * width // (2 * invocations)
        lo, hi = max(low, centre - width // 16), min(int(info.max), centre + width // 16)
        return rng.integers(lo, hi + 1, size=shape).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dtype)
    return rng.standard_normal(size=shape).astype(dtype)


class _Stderr:
    """The C++ side's stderr (fd 2), caught in a file while the block runs."""

    def __enter__(self) -> _Stderr:
        sys.stderr.flush()
        self.file = tempfile.TemporaryFile(mode="w+b")
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *_: object) -> None:
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.seek(0)
        self.text = self.file.read().decode("utf-8", "replace")
        self.file.close()


def main(argv: list[str]) -> None:
    from tflite_micro import runtime

    model, arena, invocations, seed, out = argv
    with open(model, "rb") as f:
        data = f.read()
    interpreter = runtime.Interpreter.from_bytes(data, arena_size=int(arena))
    with _Stderr() as printed:
        interpreter.print_allocations()  # the arena is planned when the interpreter is made
    rng = np.random.default_rng(int(seed))
    inputs, count = _counts(data)
    details = [interpreter.get_input_details(k) for k in range(inputs)]
    outputs: dict[str, Any] = {}
    error = None
    with _Stderr() as said:
        try:
            for step in range(int(invocations)):
                for k, detail in enumerate(details):
                    interpreter.set_input(_input(detail, step, int(invocations), rng), k)
                interpreter.invoke()
                for j in range(count):
                    outputs[f"{step}.{j}"] = np.array(interpreter.get_output(j))
        except Exception as failed:  # the interpreter says only "invocation failed"
            error = failed
    np.savez(out, **outputs)
    reason = None if error is None else (said.text.strip() or str(error))
    print(json.dumps({"allocations": printed.text, "invoke_error": reason}))


if __name__ == "__main__":
    main(sys.argv[1:])
