"""Small TFLM models made in code: float32 graphs whose tensors live for varied spans.

- ``streaming_model``: each operator reads the newest tensor and, often, an
  older one of the same width still waiting to be used, so that lifetimes
  interleave as in a network with skip connections: TFLM's greedy planner
  leaves room there, while the models stay small enough for tests.
- ``control_flow_model``: a WHILE loop or an IF between two operators, so
  that TFLM's planner walks into the subgraphs they call.

Weights are seeded random numbers; the models are built with tflite-micro's
own model editor (the ``tflm`` extra) and run in TFLM's interpreter.
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


def control_flow_model(kind: str) -> bytes:
    """``while``: x -> tanh -> a WHILE of three turns (tanh(h) * h) -> * x; ``if``: the
    same with an IF on a bool input between tanh(h) * h and logistic(h)."""
    editor: Any = import_module("tflite_micro.tensorflow.lite.micro.compression.model_editor")
    fb: Any = import_module("tflite_micro.tensorflow.lite.micro.python.schema_py_generated")
    ops, types = fb.BuiltinOperator, fb.TensorType

    def tensor(name: str, dtype: int = types.FLOAT32, data: Any = None) -> Any:
        shape = (1,) if dtype != types.FLOAT32 else (1, 64)
        return editor.Tensor(shape=shape, dtype=dtype, name=name, data=data)

    def operator(code: int, inputs: list[Any], outputs: list[Any], options: Any = None) -> Any:
        made = editor.Operator(opcode=code, inputs=inputs, outputs=outputs)
        if options is not None:
            kind_name = type(options).__name__[: -len("T")]
            made._fb.builtinOptionsType = getattr(fb.BuiltinOptions, kind_name)
            made._fb.builtinOptions = options
        return made

    def squash(name: str) -> tuple[Any, Any, list[Any]]:
        a, b, c = tensor(f"{name}a"), tensor(f"{name}b"), tensor(f"{name}c")
        return a, c, [operator(ops.TANH, [a], [b]), operator(ops.MUL, [b, a], [c])]

    x, h, h2, y = tensor("x"), tensor("h"), tensor("h2"), tensor("y")
    steps = [operator(ops.TANH, [x], [h])]
    if kind == "while":
        loop = fb.WhileOptionsT()
        loop.condSubgraphIndex, loop.bodySubgraphIndex = 1, 2
        start = tensor("i0", types.INT32, np.array([0], np.int32))
        steps.append(operator(ops.WHILE, [start, h], [tensor("i", types.INT32), h2], loop))
        ci, ch, cb = tensor("ci", types.INT32), tensor("ch"), tensor("cb", types.BOOL)
        three = tensor("three", types.INT32, np.array([3], np.int32))
        cond = editor.Subgraph(
            operators=[operator(ops.LESS, [ci, three], [cb])], inputs=[ci, ch], outputs=[cb]
        )
        bi, bi2 = tensor("bi", types.INT32), tensor("bi2", types.INT32)
        one = tensor("one", types.INT32, np.array([1], np.int32))
        bh, bh2, body_ops = squash("b")
        body = editor.Subgraph(
            operators=[operator(ops.ADD, [bi, one], [bi2]), *body_ops],
            inputs=[bi, bh],
            outputs=[bi2, bh2],
        )
        called = [cond, body]
        inputs = [x]
    elif kind == "if":
        branch = fb.IfOptionsT()
        branch.thenSubgraphIndex, branch.elseSubgraphIndex = 1, 2
        flag = tensor("c", types.BOOL)
        steps.append(operator(ops.IF, [flag, h], [h2], branch))
        ta, tc, then_ops = squash("t")
        then = editor.Subgraph(operators=then_ops, inputs=[ta], outputs=[tc])
        ea, eb = tensor("ea"), tensor("eb")
        other = editor.Subgraph(
            operators=[operator(ops.LOGISTIC, [ea], [eb])], inputs=[ea], outputs=[eb]
        )
        called = [then, other]
        inputs = [x, flag]
    else:
        raise ValueError(f"kind is 'while' or 'if', not {kind!r}")
    steps.append(operator(ops.MUL, [h2, x], [y]))
    main = editor.Subgraph(operators=steps, inputs=inputs, outputs=[y])
    model = editor.Model(subgraphs=[main, *called], description=f"tilefit {kind} model")
    return bytes(model.build())
