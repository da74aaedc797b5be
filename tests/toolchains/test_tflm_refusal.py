"""TFLM's interpreter refusing a model says TFLM's own reason (issue 38, item 4): for a
model with a DENSIFY operator, "Didn't find op for builtin opcode 'DENSIFY'", never a
line of Python's traceback; and export names --no-run, which still writes the plan."""

from __future__ import annotations

import subprocess

import pytest

from tilefit.model.errors import InputError
from tilefit.toolchains.tflm import export, runtime

# What tflite-micro 0.dev2025-2026 prints when its interpreter cannot load a model with an
# operator it has no kernel for: its own lines, then Python's traceback.
DENSIFY = """Didn't find op for builtin opcode 'DENSIFY'
Failed to get registration from op code DENSIFY

Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/tilefit/toolchains/tflm/child.py", line 70, in main
    interpreter = runtime.Interpreter.from_bytes(data, arena_size=int(arena))
  File "/venv/lib/python3.11/site-packages/tflite_micro/runtime.py", line 123, in __init__
    self._interpreter = _runtime.InterpreterWrapper(
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
RuntimeError: TFLM failed to allocate tensors
"""

PREPARE = """Type FLOAT16 (10) not supported.
Node DEQUANTIZE (number 3) failed to prepare with status 1
Traceback (most recent call last):
  File "child.py", line 70, in main
RuntimeError: TFLM failed to allocate tensors
"""


def _failed(stderr: str) -> subprocess.CompletedProcess[str]:
    return subprocess.CompletedProcess(["child"], 1, "", stderr)


def test_the_refusal_is_tflm_s_own_reason_not_a_python_line() -> None:
    why = runtime._why(_failed(DENSIFY))
    assert why == (
        "Didn't find op for builtin opcode 'DENSIFY'; "
        "Failed to get registration from op code DENSIFY; TFLM failed to allocate tensors"
    )
    assert "_runtime" not in why and "Traceback" not in why and "RuntimeError" not in why
    assert runtime._why(_failed(PREPARE)) == (
        "Type FLOAT16 (10) not supported; "
        "Node DEQUANTIZE (number 3) failed to prepare with status 1; "
        "TFLM failed to allocate tensors"
    )
    assert runtime._why(_failed("")) == "exit 1"


def test_export_names_no_run_when_the_interpreter_will_not_load_the_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(data: bytes, where: str, **_: object) -> runtime.Run:
        why = runtime._why(_failed(DENSIFY))
        raise InputError("", f"TFLM's interpreter refused the model: {why}", where)

    monkeypatch.setattr(runtime, "run_model", refuse)
    with pytest.raises(InputError) as refused:
        export._run_both(b"model", b"written", "model.tflite", 1024)
    message = refused.value.message
    assert message.startswith("model.tflite: TFLM's interpreter refused the model: Didn't find op")
    assert message.endswith("--no-run writes the plan the referee accepts")
