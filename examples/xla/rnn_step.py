"""A small JAX training step with a scanned RNN cell, for docs/xla.md.

Run it with XLA's dumps switched on, then import what XLA planned:

    XLA_FLAGS=--xla_dump_to=dump python examples/xla/rnn_step.py
    tilefit import xla dump -o captures

Inputs are NumPy arrays, so the dump holds this program's module alone.
"""

import jax
import jax.numpy as jnp
import numpy as np

rng = np.random.default_rng(0)
weights = rng.standard_normal((6, 64, 64)).astype(np.float32) * 0.1
inputs = rng.standard_normal((16, 64)).astype(np.float32)


def loss(weights: jax.Array, h: jax.Array) -> jax.Array:
    def cell(h: jax.Array, w: jax.Array) -> tuple[jax.Array, jax.Array]:
        h = jnp.tanh(h @ w)
        return h, h.sum()

    h, sums = jax.lax.scan(cell, h, weights)
    return (h**2).sum() + sums.sum()


train_step = jax.jit(jax.value_and_grad(loss))
value, grads = train_step(weights, inputs)
print(f"loss {float(value):.3f}")
