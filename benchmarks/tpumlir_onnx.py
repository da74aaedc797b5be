"""Small ONNX models of tilefit's own, made in code with onnx.helper, for TPU-MLIR.

Run by benchmarks/tpumlir_models.py in TPU-MLIR's venv (Python 3.10, where onnx is
installed): ``python tpumlir_onnx.py NAME OUT.onnx`` writes one model. Every weight
comes from a seeded generator, so a model is the same bytes on every run.

The families: conv nets (3x3 convolutions and ReLUs, a residual Add, over a range of
input sizes and channels), a depthwise-separable net (depthwise 3x3, pointwise 1x1),
and a pre-LN transformer block (attention and an MLP). The name carries the shape:
``conv_c16_s64`` is the conv net of 16 channels on a 64x64 input.
"""

from __future__ import annotations

import re
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


def _weights(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    fan_in = int(np.prod(shape[1:])) or 1
    return (rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)


class _Graph:
    """Nodes and initializers gathered while a model is built."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.count = 0

    def name(self, kind: str) -> str:
        self.count += 1
        return f"{kind}{self.count}"

    def const(self, array: np.ndarray, kind: str = "w") -> str:
        name = self.name(kind)
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def op(self, op_type: str, inputs: list[str], **attrs: object) -> str:
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def conv(self, x: str, cin: int, cout: int, kernel: int, group: int = 1) -> str:
        w = self.const(_weights(self.rng, (cout, cin // group, kernel, kernel)))
        b = self.const((self.rng.standard_normal(cout) * 0.1).astype(np.float32), "b")
        pad = kernel // 2
        return self.op(
            "Conv", [x, w, b], kernel_shape=[kernel, kernel], pads=[pad] * 4, group=group
        )

    def model(self, x_shape: list[int], x: str, y: str, y_shape: list[int]) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes,
            "tilefit",
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, x_shape)],
            [helper.make_tensor_value_info(y, TensorProto.FLOAT, y_shape)],
            self.inits,
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model


def conv_net(channels: int, size: int) -> onnx.ModelProto:
    """Four 3x3 convolutions with ReLUs (the channels doubling once), a residual Add."""
    g = _Graph(seed=channels * 1000 + size)
    x = "input"
    a = g.op("Relu", [g.conv(x, channels, channels, 3)])
    b = g.op("Relu", [g.conv(a, channels, channels, 3)])
    c = g.op("Add", [a, b])
    d = g.op("Relu", [g.conv(c, channels, 2 * channels, 3)])
    e = g.conv(d, 2 * channels, channels, 3)
    return g.model([1, channels, size, size], x, e, [1, channels, size, size])


def depthwise_net(channels: int, size: int) -> onnx.ModelProto:
    """Three depthwise-separable blocks: depthwise 3x3, ReLU, pointwise 1x1, ReLU."""
    g = _Graph(seed=channels * 1000 + size + 7)
    x = "input"
    for _ in range(3):
        x = g.op("Relu", [g.conv(x, channels, channels, 3, group=channels)])
        x = g.op("Relu", [g.conv(x, channels, channels, 1)])
    return g.model([1, channels, size, size], "input", x, [1, channels, size, size])


def transformer_block(width: int, tokens: int) -> onnx.ModelProto:
    """A pre-LN block: LayerNorm, one-head attention, Add; LayerNorm, MLP (4x, GELU), Add."""
    g = _Graph(seed=width * 1000 + tokens + 13)
    x = "input"

    def layer_norm(v: str) -> str:
        scale = g.const(np.ones(width, np.float32), "ln_s")
        bias = g.const(np.zeros(width, np.float32), "ln_b")
        return g.op("LayerNormalization", [v, scale, bias], axis=-1, epsilon=1e-5)

    def linear(v: str, cin: int, cout: int) -> str:
        w = g.const(_weights(g.rng, (cout, cin)).T.copy())
        b = g.const((g.rng.standard_normal(cout) * 0.1).astype(np.float32), "b")
        return g.op("Add", [g.op("MatMul", [v, w]), b])

    h = layer_norm(x)
    q, k, v = (linear(h, width, width) for _ in range(3))
    kt = g.op("Transpose", [k], perm=[0, 2, 1])
    scores = g.op("MatMul", [q, kt])
    scaled = g.op("Mul", [scores, g.const(np.array(1 / np.sqrt(width), np.float32), "s")])
    attention = g.op("MatMul", [g.op("Softmax", [scaled], axis=-1), v])
    x1 = g.op("Add", [x, linear(attention, width, width)])
    h2 = layer_norm(x1)
    up = linear(h2, width, 4 * width)
    act = g.op(
        "Mul", [up, g.op("Sigmoid", [g.op("Mul", [up, g.const(np.array(1.702, np.float32), "s")])])]
    )
    y = g.op("Add", [x1, linear(act, 4 * width, width)])
    return g.model([1, tokens, width], x, y, [1, tokens, width])


FAMILIES = {"conv": conv_net, "dw": depthwise_net, "tfm": transformer_block}
_NAME = re.compile(r"^(conv|dw|tfm)_c(\d+)_s(\d+)$")


def make(name: str) -> onnx.ModelProto:
    """The model a name describes: ``FAMILY_cCHANNELS_sSIZE``."""
    match = _NAME.match(name)
    if match is None:
        raise SystemExit(
            f"{name}: not a model name (FAMILY_cCHANNELS_sSIZE, FAMILY one of conv, dw, tfm)"
        )
    return FAMILIES[match.group(1)](int(match.group(2)), int(match.group(3)))


def input_shape(name: str) -> list[int]:
    model = make(name)
    dims = model.graph.input[0].type.tensor_type.shape.dim
    return [d.dim_value for d in dims]


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: tpumlir_onnx.py NAME OUT.onnx")
    onnx.save(make(sys.argv[1]), sys.argv[2])
