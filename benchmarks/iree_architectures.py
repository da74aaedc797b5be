"""The architectures of benchmarks/iree_models.py, written in JAX with seeded random weights.

Each function gives the forward function and its example arguments; `emit`
lowers one to StableHLO text (`jax.jit(f).lower(...).as_text()`, with the
source lines). jax is imported only inside them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

# ---------------------------------------------------------------------------
# The programs (JAX, seeded random weights held as constants)


def _weights(seed: int) -> Callable[..., Any]:
    import numpy as np

    rng = np.random.default_rng(seed)

    def draw(*shape: int, fan_in: int | None = None) -> Any:
        fan = (
            fan_in
            if fan_in is not None
            else (shape[0] if len(shape) == 2 else math.prod(shape[:-1]))
        )
        return (rng.standard_normal(shape) * math.sqrt(2.0 / fan)).astype(np.float32)

    return draw


def _conv(x: Any, w: Any, stride: int = 1, groups: int = 1) -> Any:
    import jax

    return jax.lax.conv_general_dilated(
        x,
        w,
        (stride, stride),
        "SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
        feature_group_count=groups,
    )


def _norm(x: Any) -> Any:
    import jax.numpy as jnp

    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mean) ** 2, axis=-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + 1e-5)


def _attention(x: Any, wq: Any, wk: Any, wv: Any, wo: Any, heads: int) -> Any:
    import jax
    import jax.numpy as jnp

    seq, width = x.shape[1], wq.shape[1]
    split = (1, seq, heads, width // heads)
    q = (x @ wq).reshape(split).transpose(0, 2, 1, 3)
    k = (x @ wk).reshape(split).transpose(0, 2, 1, 3)
    v = (x @ wv).reshape(split).transpose(0, 2, 1, 3)
    scores = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / math.sqrt(width // heads), axis=-1)
    out = (scores @ v).transpose(0, 2, 1, 3).reshape(1, seq, width)
    return jnp.asarray(out @ wo)


def mobilenet_v2() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    import jax.numpy as jnp
    import numpy as np

    w = _weights(1)
    relu6 = lambda v: jnp.clip(v, 0.0, 6.0)  # noqa: E731
    config = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1)]
    config += [(6, 160, 3, 2), (6, 320, 1, 1)]
    stem = w(3, 3, 3, 32)
    blocks = []
    channels = 32
    for t, c, n, s in config:
        for i in range(n):
            hidden = channels * t
            expand = w(1, 1, channels, hidden) if t != 1 else None
            depth = w(3, 3, 1, hidden, fan_in=9)
            project = w(1, 1, hidden, c)
            blocks.append((expand, depth, project, s if i == 0 else 1, channels == c))
            channels = c
    head = w(1, 1, 320, 1280)
    classifier = w(1280, 1000)

    def forward(x: Any) -> Any:
        h = relu6(_conv(x, stem, 2))
        for expand, depth, project, stride, residual in blocks:
            inner = h if expand is None else relu6(_conv(h, expand))
            inner = relu6(_conv(inner, depth, stride, groups=inner.shape[-1]))
            out = _conv(inner, project)
            h = out + h if residual and stride == 1 else out
        h = relu6(_conv(h, head))
        return jnp.mean(h, axis=(1, 2)) @ classifier

    return forward, (np.zeros((1, 224, 224, 3), np.float32),)


def mobilebert() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    import jax
    import numpy as np

    w = _weights(2)
    layers = [
        {
            "in": w(512, 128),
            "q": w(128, 128),
            "k": w(128, 128),
            "v": w(128, 128),
            "o": w(128, 128),
            "ffn": [(w(128, 512), w(512, 128)) for _ in range(2)],
            "out": w(128, 512),
        }
        for _ in range(4)
    ]

    def forward(x: Any) -> Any:
        for p in layers:
            h = x @ p["in"]
            h = _norm(h + _attention(h, p["q"], p["k"], p["v"], p["o"], 4))
            for up, down in p["ffn"]:
                h = _norm(h + jax.nn.relu(h @ up) @ down)
            x = _norm(x + h @ p["out"])
        return x

    return forward, (np.zeros((1, 128, 512), np.float32),)


def bert_base() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    import jax
    import numpy as np

    w = _weights(3)
    layers = [
        {k: w(768, 768) for k in "qkvo"} | {"up": w(768, 3072), "down": w(3072, 768)}
        for _ in range(2)
    ]

    def forward(x: Any) -> Any:
        for p in layers:
            x = _norm(x + _attention(x, p["q"], p["k"], p["v"], p["o"], 12))
            x = _norm(x + jax.nn.gelu(x @ p["up"]) @ p["down"])
        return x

    return forward, (np.zeros((1, 128, 768), np.float32),)


def decoder_step() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    import jax
    import jax.numpy as jnp
    import numpy as np

    w = _weights(4)
    width, heads, cached, position, vocabulary = 512, 8, 256, 100, 8000
    dh = width // heads
    layers = [
        {k: w(width, width) for k in "qkvo"} | {"up": w(width, 2048), "down": w(2048, width)}
        for _ in range(4)
    ]
    embedding = w(width, vocabulary)
    mask = np.where(np.arange(cached) <= position, 0.0, -1e9).astype(np.float32)

    def forward(x: Any, keys: Any, values: Any) -> Any:
        new_keys, new_values = [], []
        for i, p in enumerate(layers):
            q = (x @ p["q"]).reshape(heads, 1, dh)
            k = (x @ p["k"]).reshape(heads, 1, dh)
            v = (x @ p["v"]).reshape(heads, 1, dh)
            layer_keys = jax.lax.dynamic_update_slice(keys[i], k, (0, position, 0))
            layer_values = jax.lax.dynamic_update_slice(values[i], v, (0, position, 0))
            scores = q @ layer_keys.transpose(0, 2, 1) / math.sqrt(dh) + mask
            out = (jax.nn.softmax(scores, axis=-1) @ layer_values).reshape(1, width)
            x = _norm(x + out @ p["o"])
            x = _norm(x + jax.nn.gelu(x @ p["up"]) @ p["down"])
            new_keys.append(layer_keys)
            new_values.append(layer_values)
        return x @ embedding, jnp.stack(new_keys), jnp.stack(new_values)

    cache = np.zeros((4, heads, cached, dh), np.float32)
    return forward, (np.zeros((1, width), np.float32), cache, cache)


def unet() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    import jax
    import jax.numpy as jnp
    import numpy as np

    w = _weights(5)
    pairs = {
        "e1": (3, 32),
        "e2": (32, 64),
        "mid": (64, 128),
        "d2": (192, 64),
        "d1": (96, 32),
    }
    convs = {k: (w(3, 3, a, b), w(3, 3, b, b)) for k, (a, b) in pairs.items()}
    last = w(1, 1, 32, 3)

    def twice(x: Any, name: str) -> Any:
        first, second = convs[name]
        return jax.nn.relu(_conv(jax.nn.relu(_conv(x, first)), second))

    def pool(x: Any) -> Any:
        return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def up(x: Any) -> Any:
        return jnp.repeat(jnp.repeat(x, 2, axis=1), 2, axis=2)

    def forward(x: Any) -> Any:
        c1 = twice(x, "e1")
        c2 = twice(pool(c1), "e2")
        mid = twice(pool(c2), "mid")
        d2 = twice(jnp.concatenate([up(mid), c2], axis=-1), "d2")
        d1 = twice(jnp.concatenate([up(d2), c1], axis=-1), "d1")
        return _conv(d1, last)

    return forward, (np.zeros((1, 64, 64, 3), np.float32),)


MODELS: dict[str, Callable[[], tuple[Callable[..., Any], tuple[Any, ...]]]] = {
    "mobilenet_v2_224": mobilenet_v2,
    "mobilebert_128": mobilebert,
    "bert_base_2x128": bert_base,
    "decoder_step_kv256": decoder_step,
    "unet_64": unet,
}


def emit(name: str, folder: Path) -> Path:
    """The model lowered to StableHLO text, in ``folder``."""
    import jax

    forward, args = MODELS[name]()
    path = folder / f"{name}.mlir"
    path.write_text(jax.jit(forward).lower(*args).as_text(debug_info=True))
    return path
