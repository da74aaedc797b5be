"""Million-buffer traces with real lifetimes, for ``million.py`` (issue 48, item 3), as
MiniMalloc CSV text (``id,lower,upper,size``, lifetimes ``[lower, upper)`` in steps).

- ``training_graph(count, seed)``: one training step of a deep network. The forward
  pass runs its layers in order; each layer saves activations for the backward pass,
  and every one of them stays alive until the backward pass reaches that layer again,
  which frees them layer by layer in reverse. The weights are resident throughout;
  each layer's weight gradients are made by its backward step and kept until the
  optimizer's step at the end. Scratch (a layer's temporaries, gradients passed from
  layer to layer) lives a step or a few, anywhere. A fifth of the buffers are saved
  activations: about 200,000 are alive at the turn of a million.
- ``tiled_real(folder, count)``: the real traces of ``folder`` (``../shared/traces``),
  end to end in name order, each one's steps shifted past the previous one's end, the
  set repeated until ``count`` buffers (the last copy cut short there); ids become
  ``NAME.COPY.ID``. ``None`` when the folder holds no trace.

Both are deterministic: the same arguments give the same text. Sizes are multiples of
64 bytes, drawn log-uniform.
"""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path

STEPS_PER_LAYER = 8
"""A layer's forward steps (and as many backward)."""
LAYER_BUFFERS = 200
"""Buffers per layer, all kinds together: a million buffers is 5,000 layers."""


def training_graph(count: int = 1_000_000, seed: int = 0) -> str:
    rng = random.Random(seed)
    layers = max(1, count // LAYER_BUFFERS)
    forward = layers * STEPS_PER_LAYER
    horizon = 2 * forward + 1  # the last step is the optimizer's
    saved, weights = count // 5, max(1, count // 200)
    grads = weights
    rows: list[tuple[int, int, int, str]] = []
    for _ in range(weights):
        rows.append((0, horizon, _size(rng, 8, 20), "w"))
    for k in range(saved):
        step = k * forward // saved  # evenly through the forward pass
        layer = step // STEPS_PER_LAYER
        rows.append((step, _backward_end(layer, forward), _size(rng, 4, 15), "a"))
    for k in range(grads):
        layer = k * layers // grads
        made = _backward_end(layer, forward) - 1 - rng.randrange(STEPS_PER_LAYER)
        rows.append((made, horizon, _size(rng, 8, 20), "g"))
    for _ in range(count - len(rows)):
        start = rng.randrange(horizon - 1)
        length = 1 + min(int(rng.expovariate(0.6)), 7)
        rows.append((start, min(horizon, start + length), _size(rng, 0, 14), "s"))
    rows.sort()  # as a recorder sees them: by the step they are made
    lines = ["id,lower,upper,size"]
    lines += [f"{kind}{k},{lo},{up},{size}" for k, (lo, up, size, kind) in enumerate(rows)]
    return "\n".join(lines) + "\n"


def _backward_end(layer: int, forward: int) -> int:
    """The step after the backward pass's last step on ``layer`` (its forward steps
    mirrored around the turn): what that layer saved is freed there."""
    return 2 * forward - layer * STEPS_PER_LAYER


def _size(rng: random.Random, low: int, high: int) -> int:
    """64 bytes times 2**u, u uniform in [low, high)."""
    return 64 * max(1, int(2 ** rng.uniform(low, high)))


def tiled_real(folder: Path, count: int = 1_000_000) -> str | None:
    sources = sorted(folder.glob("*.csv"))
    if not sources:
        return None
    traces = [(path.stem, _rows(path)) for path in sources]
    lines = ["id,lower,upper,size"]
    shift, copy = 0, 0
    while len(lines) - 1 < count:  # the header is not a buffer
        for name, rows in traces:
            end = 0
            for ident, lower, upper, size in rows:
                if len(lines) - 1 >= count:
                    break
                lines.append(f"{name}.{copy}.{ident},{lower + shift},{upper + shift},{size}")
                end = max(end, upper)
            shift += end
        copy += 1
    return "\n".join(lines) + "\n"


def _rows(path: Path) -> list[tuple[str, int, int, int]]:
    """A trace's rows (any ``offset`` column left out: its plan is no one's input here)."""
    text = path.read_text(encoding="utf-8")
    return [
        (row["id"], int(row["lower"]), int(row["upper"]), int(row["size"]))
        for row in csv.DictReader(io.StringIO(text))
    ]
