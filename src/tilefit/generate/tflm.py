"""Small TFLM models made in code: float32 graphs whose tensors live for varied spans.

Each operator reads the newest tensor and, often, an older one of the same
width still waiting to be used, so that lifetimes interleave as in a
network with skip connections: TFLM's greedy planner leaves room there,
while the models stay small enough for tests. Weights are seeded random
numbers; the model is built with tflite-micro's own model editor (the
``tflm`` extra) and runs in TFLM's interpreter.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

import numpy as np

WIDTHS = (4, 8, 12, 16, 24, 32, 48, 64)


def streaming_model(seed: int, operators: int = 12, skip: float = 0.5) -> bytes:
    """A seeded random model of about ``operators`` float32 operators."""
    editor: Any = import_module("tflite_micro.tensorflow.lite.micro.compression.model_editor")
    fb: Any = import_module("tflite_micro.tensorflow.lite.micro.python.schema_py_generated")
    rng = np.random.default_rng(seed)
    ops = fb.BuiltinOperator
    f32 = fb.TensorType.FLOAT32
    count = 0

    def tensor(width: int, data: Any = None) -> Any:
        nonlocal count
        count += 1
        shape = data.shape if data is not None else (1, width)
        return editor.Tensor(shape=shape, dtype=f32, data=data, name=f"t{count}")

    first = tensor(int(rng.choice(WIDTHS)))
    made: list[Any] = [first]
    operator_list: list[Any] = []
    waiting: list[Any] = []  # older tensors a later operator will read again
    current = first
    for _ in range(operators):
        width = current.shape[1]
        older = [t for t in waiting if t.shape[1] == width]
        if older and rng.random() < 0.6:
            other = older[0]
            waiting.remove(other)
            out = tensor(width)
            code = ops.ADD if rng.random() < 0.5 else ops.MUL
            operator_list.append(
                editor.Operator(opcode=code, inputs=[current, other], outputs=[out])
            )
        elif rng.random() < 0.5:
            wide = int(rng.choice(WIDTHS))
            weights = tensor(0, (rng.standard_normal((wide, width)) / np.sqrt(width)).astype("f4"))
            bias = tensor(0, (0.1 * rng.standard_normal(wide)).astype("f4"))
            out = tensor(wide)
            operator_list.append(
                editor.Operator(
                    opcode=ops.FULLY_CONNECTED, inputs=[current, weights, bias], outputs=[out]
                )
            )
        else:
            out = tensor(width)
            code = ops.TANH if rng.random() < 0.5 else ops.LOGISTIC
            operator_list.append(editor.Operator(opcode=code, inputs=[current], outputs=[out]))
        if rng.random() < skip:
            waiting.append(current)
        made.append(out)
        current = out
    outputs = [current, *waiting[:1]]
    graph = editor.Subgraph(operators=operator_list, inputs=[first], outputs=outputs)
    model = editor.Model(subgraphs=[graph], description=f"tilefit streaming_model seed {seed}")
    return bytes(model.build())
