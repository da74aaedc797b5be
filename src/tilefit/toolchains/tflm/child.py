"""The child process that runs one model in TFLM's interpreter (``runtime.run_model``).

``python -m tilefit.toolchains.tflm.child MODEL ARENA INVOCATIONS SEED OUT``:
the outputs of every invocation go to OUT (``.npz``, ``INVOCATION.OUTPUT``),
and one JSON line on stdout carries what ``print_allocations`` wrote.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any

import numpy as np


def _details(interpreter: Any, getter: str) -> list[Any]:
    found: list[Any] = []
    while True:
        try:
            found.append(getattr(interpreter, getter)(len(found)))
        except Exception:  # the interpreter says "no such index" only by raising
            return found


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


def _allocations(interpreter: Any) -> str:
    """What print_allocations writes on the C++ side's stderr."""
    sys.stderr.flush()
    with tempfile.TemporaryFile(mode="w+b") as capture:
        saved = os.dup(2)
        os.dup2(capture.fileno(), 2)
        try:
            interpreter.print_allocations()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        capture.seek(0)
        return capture.read().decode("utf-8", "replace")


def main(argv: list[str]) -> None:
    from tflite_micro import runtime

    model, arena, invocations, seed, out = argv
    with open(model, "rb") as f:
        data = f.read()
    interpreter = runtime.Interpreter.from_bytes(data, arena_size=int(arena))
    rng = np.random.default_rng(int(seed))
    inputs = _details(interpreter, "get_input_details")
    count = len(_details(interpreter, "get_output_details"))
    outputs: dict[str, Any] = {}
    for step in range(int(invocations)):
        for k, detail in enumerate(inputs):
            interpreter.set_input(_input(detail, step, int(invocations), rng), k)
        interpreter.invoke()
        for j in range(count):
            outputs[f"{step}.{j}"] = np.array(interpreter.get_output(j))
    np.savez(out, **outputs)
    print(json.dumps({"allocations": _allocations(interpreter)}))


if __name__ == "__main__":
    main(sys.argv[1:])
