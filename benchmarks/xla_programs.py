"""Real JAX programs through `tilefit import xla`: XLA's heap beside the bound and the search.

Run from the repository root (after `pip install -e '.[test,bench]'` and
`pip install 'tilefit[xla]'`, which brings jax):

    .venv/bin/python benchmarks/xla_programs.py      # about 12-15 minutes on 2 cores

Options: `--quick` (the smallest size of each program, 2 s per search: about
a minute), `--time-limit S` (seconds of the search per module, default 10),
`--no-import-speed` (skip the 10,000-value import check). Without jax it
says so and exits 0.

Eight programs of the field, three sizes each (S, M, L; the largest with
about 1,300-2,300 values in XLA's temp allocation): an MLP and a CNN
training step, a transformer's forward pass, its training step without and
with rematerialisation (`jax.checkpoint`), stacked RNN layers over
`lax.scan`, Jacobi solves in `fori_loop`s and a chain of `lax.cond`. Each is
compiled (not run) on CPU in its own subprocess with
`XLA_FLAGS=--xla_dump_to=DIR`, DIR a temporary folder removed afterwards.
The inputs are numpy arrays, so the dump holds the program's own module
(`jit_<function>`); every module of the dump is imported and any other one
is named and skipped. Per module: XLA's heap (its temp allocation), the live
lower bound, the aligned lower bound (the live bytes with the padding that the
64 B alignment forces between them, `tilefit.bounds.aligned`), the lowest top
the exact search finds inside XLA's heap (`solve(...,
minimize=True)`, what `tilefit solve --minimize` runs) and whether it is
proven optimal, and both placements refereed (XLA's in
exactly its own heap). Exit 1 if any check of the summary fails. Then one
module of more than 10,000 values (150 stacked RNN layers, compiled in
about 20-30 s) is imported with timing (target: under 2 s).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# size (0, 1, 2) -> the jitted function and its arguments
Program = Callable[[int], tuple[Any, tuple[Any, ...]]]

IMPORT_SPEED_TARGET = 2.0  # seconds for one module of 10,000 values or more
IMPORT_SPEED_VALUES = 10_000


# ---------------------------------------------------------------------------
# The programs (run in the subprocess only: the parent never imports jax)


def _weights(seed: int) -> Callable[..., Any]:
    import numpy as np

    rng = np.random.default_rng(seed)

    def draw(*shape: int) -> Any:
        return (rng.standard_normal(shape) * 0.05).astype(np.float32)

    return draw


def mlp_train(size: int) -> tuple[Any, tuple[Any, ...]]:
    """A training step of an MLP (GELU layers, squared error, SGD)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    width, depth, batch = [(128, 3, 32), (256, 24, 64), (256, 500, 32)][size]
    w = _weights(0)
    params = [(w(width, width), np.zeros(width, np.float32)) for _ in range(depth)]
    x, y = w(batch, width), w(batch, width)

    def loss(params: Any, x: Any, y: Any) -> Any:
        h = x
        for a, b in params:
            h = jax.nn.gelu(h @ a + b)
        return jnp.mean((h - y) ** 2)

    def mlp_step(params: Any, x: Any, y: Any) -> Any:
        value, grads = jax.value_and_grad(loss)(params, x, y)
        return value, jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)

    return jax.jit(mlp_step), (params, x, y)


def cnn_train(size: int) -> tuple[Any, tuple[Any, ...]]:
    """A training step of a CNN: conv-ReLU stages with max pooling, a linear head, softmax."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    channels, side, batch, per_stage = [(8, 16, 4, 1), (16, 32, 8, 4), (16, 32, 8, 64)][size]
    w = _weights(1)
    stages = []
    c_in = 3
    for stage in range(3):
        c_out = channels * 2**stage
        stages.append([w(3, 3, c_in if i == 0 else c_out, c_out) for i in range(per_stage)])
        c_in = c_out
    head = w(c_in, 10)
    x = w(batch, side, side, 3)
    y = np.eye(10, dtype=np.float32)[np.arange(batch) % 10]

    def loss(p: Any, x: Any, y: Any) -> Any:
        stages, head = p
        h = x
        for kernels in stages:
            for k in kernels:
                h = jax.lax.conv_general_dilated(
                    h, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
                )
                h = jax.nn.relu(h)
            h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        logits = h.mean(axis=(1, 2)) @ head
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))

    def cnn_step(p: Any, x: Any, y: Any) -> Any:
        value, grads = jax.value_and_grad(loss)(p, x, y)
        return value, jax.tree_util.tree_map(lambda a, g: a - 0.1 * g, p, grads)

    return jax.jit(cnn_step), ((stages, head), x, y)


# width, heads, tokens, batch, vocabulary; the layers are the program's
_TRANSFORMER = [(64, 2, 32, 4, 256), (128, 4, 64, 8, 512), (128, 4, 64, 4, 512)]
_FORWARD_LAYERS = (2, 12, 128)
_TRAIN_LAYERS = (2, 6, 32)


def _transformer(size: int, layers: int) -> tuple[Any, Any, int]:
    import numpy as np

    width, heads, tokens, batch, vocab = _TRANSFORMER[size]
    w = _weights(2)
    params = {
        "emb": w(vocab, width),
        "layers": [
            {
                "qkv": w(width, 3 * width),
                "o": w(width, width),
                "up": w(width, 4 * width),
                "down": w(4 * width, width),
            }
            for _ in range(layers)
        ],
    }
    ids = (np.arange(batch * tokens).reshape(batch, tokens) * 7 % vocab).astype(np.int32)
    return params, ids, heads


def _logits(params: Any, ids: Any, heads: int, remat: bool) -> Any:
    """A pre-norm causal decoder with tied embeddings."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    h = params["emb"][ids]
    b, t, d = h.shape
    mask = np.tril(np.ones((t, t), bool))

    def norm(v: Any) -> Any:
        return (v - v.mean(-1, keepdims=True)) / (v.std(-1, keepdims=True) + 1e-5)

    def split(v: Any) -> Any:
        return v.reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3)

    def block(h: Any, layer: Any) -> Any:
        q, k, v = (split(a) for a in jnp.split(norm(h) @ layer["qkv"], 3, axis=-1))
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d // heads)
        att = jax.nn.softmax(jnp.where(mask, scores, -1e9), axis=-1)
        h = h + (att @ v).transpose(0, 2, 1, 3).reshape(b, t, d) @ layer["o"]
        return h + jax.nn.gelu(norm(h) @ layer["up"]) @ layer["down"]

    if remat:
        block = jax.checkpoint(block)
    for layer in params["layers"]:
        h = block(h, layer)
    return norm(h) @ params["emb"].T


def transformer_forward(size: int) -> tuple[Any, tuple[Any, ...]]:
    """A transformer's forward pass (inference)."""
    import jax

    params, ids, heads = _transformer(size, _FORWARD_LAYERS[size])

    def tf_forward(params: Any, ids: Any) -> Any:
        return _logits(params, ids, heads, False)

    return jax.jit(tf_forward), (params, ids)


def _train_step(size: int, remat: bool) -> tuple[Any, tuple[Any, ...]]:
    import jax
    import jax.numpy as jnp

    params, ids, heads = _transformer(size, _TRAIN_LAYERS[size])

    def loss(params: Any, ids: Any) -> Any:
        logp = jax.nn.log_softmax(_logits(params, ids, heads, remat)[:, :-1])
        return -jnp.mean(jnp.take_along_axis(logp, ids[:, 1:, None], -1))

    def step(params: Any, ids: Any) -> Any:
        value, grads = jax.value_and_grad(loss)(params, ids)
        return value, jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)

    step.__name__ = "tf_remat_step" if remat else "tf_step"
    return jax.jit(step), (params, ids)


def transformer_train(size: int) -> tuple[Any, tuple[Any, ...]]:
    """A transformer's training step."""
    return _train_step(size, False)


def transformer_train_remat(size: int) -> tuple[Any, tuple[Any, ...]]:
    """The same step with each block rematerialised (jax.checkpoint)."""
    return _train_step(size, True)


def _stacked_rnn(
    width: int, steps: int, batch: int, layers: int, seed: int, name: str
) -> tuple[Any, tuple[Any, ...]]:
    """The loss and gradients of stacked tanh RNN layers, each a lax.scan over time;
    ``name`` names the jitted function, so XLA's module is ``jit_NAME``."""
    import jax
    import jax.numpy as jnp

    w = _weights(seed)
    params = [(w(width, width), w(width, width)) for _ in range(layers)]
    xs = w(steps, batch, width)

    def loss(params: Any, xs: Any) -> Any:
        total: Any = 0.0
        for wh, wx in params:

            def cell(h: Any, x: Any, wh: Any = wh, wx: Any = wx) -> Any:
                h = jnp.tanh(h @ wh + x @ wx)
                return h, h

            h, xs = jax.lax.scan(cell, jnp.zeros((batch, width), jnp.float32), xs)
            total = total + (h**2).mean()
        return total + xs.mean()

    def step(params: Any, xs: Any) -> Any:
        return jax.value_and_grad(loss)(params, xs)

    step.__name__ = step.__qualname__ = name
    return jax.jit(step), (params, xs)


def rnn_scan(size: int) -> tuple[Any, tuple[Any, ...]]:
    """Stacked RNN layers over lax.scan, three sizes."""
    width, steps, batch, layers = [(64, 8, 8, 1), (128, 32, 16, 4), (128, 64, 16, 32)][size]
    return _stacked_rnn(width, steps, batch, layers, 3, "rnn_step")


def while_loop(size: int) -> tuple[Any, tuple[Any, ...]]:
    """Jacobi iterations in a fori_loop (a while loop to XLA), several systems in sequence."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    n, iterations, systems = [(64, 10, 1), (256, 20, 8), (128, 40, 100)][size]
    w = _weights(4)
    a = np.stack([w(n, n) + np.eye(n, dtype=np.float32) * 4 for _ in range(systems)])
    b = w(systems, n, 8)

    def jacobi(a: Any, b: Any) -> Any:
        out = []
        x = jnp.zeros_like(b[0])
        for k in range(systems):
            d = jnp.diag(a[k])
            rest = a[k] - jnp.diag(d)

            def body(i: Any, x: Any, rest: Any = rest, d: Any = d, k: int = k) -> Any:
                return (b[k] - rest @ x) / d[:, None]

            x = jax.lax.fori_loop(0, iterations, body, x)
            out.append(jnp.linalg.norm(a[k] @ x - b[k]))
        return x, jnp.stack(out)

    return jax.jit(jacobi), (a, b)


def cond_branches(size: int) -> tuple[Any, tuple[Any, ...]]:
    """A chain of lax.cond, each choosing between two differently shaped computations."""
    import jax
    import jax.numpy as jnp

    n, rows, conds = [(64, 16, 1), (256, 16, 12), (256, 16, 160)][size]
    w = _weights(5)
    mats = w(conds, n, n)
    x = w(rows, n)

    def branchy(mats: Any, x: Any) -> Any:
        y = x
        for k in range(conds):
            a = mats[k]
            y = jax.lax.cond(
                y.sum() > 0,
                lambda v, a=a: jnp.tanh(v @ a) * 2,
                lambda v, a=a: jnp.sin(v) @ a.T + jnp.cos(v @ a),
                y @ a,
            )
        return y.sum(), y

    return jax.jit(branchy), (mats, x)


def deep_rnn(size: int) -> tuple[Any, tuple[Any, ...]]:
    """The import-speed module: the loss and gradients of 150 stacked RNN layers (size unused)."""
    return _stacked_rnn(64, 16, 8, 150, 6, "deep_rnn_step")


PROGRAMS: dict[str, Program] = {
    f.__name__: f
    for f in (
        mlp_train,
        cnn_train,
        transformer_forward,
        transformer_train,
        transformer_train_remat,
        rnn_scan,
        while_loop,
        cond_branches,
    )
}
SPEED_PROGRAM: dict[str, Program] = {"deep_rnn": deep_rnn}


def compile_only(name: str, size: int) -> int:
    """The subprocess: compile one program (XLA dumps it) and say its module's name."""
    program = {**PROGRAMS, **SPEED_PROGRAM}[name]
    started = time.monotonic()
    fn, args = program(size)
    fn.lower(*args).compile()
    print(json.dumps({"module": f"jit_{fn.__name__}", "seconds": time.monotonic() - started}))
    return 0


# ---------------------------------------------------------------------------
# The parent: compile in a subprocess, import, bound, solve, referee


@dataclass
class Row:
    program: str
    size: str
    values: int
    requests: int
    heap: int
    lower: int
    aligned: int  # the aligned lower bound's lowest top (the live bytes and forced padding)
    best: int | None
    proven_lower: int  # the search's lower bound on the top
    optimal: bool
    import_s: float
    solve_s: float
    compile_s: float
    xla_valid: bool
    tilefit_valid: bool | None  # None: no placement found
    violations: list[str]  # the referee's first findings on a placement that fails


def dump(name: str, size: int, folder: Path) -> tuple[str, float]:
    """Compile ``name`` at ``size``, XLA dumping into ``folder``: its module, compile seconds."""
    env = dict(os.environ)
    flags = env.get("XLA_FLAGS", "")
    env["XLA_FLAGS"] = f"{flags} --xla_dump_to={folder}".strip()
    env.setdefault("JAX_PLATFORMS", "cpu")
    done = subprocess.run(
        [sys.executable, __file__, "--compile", name, str(size)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{name} size {size}: compiling failed\n{done.stderr[-3000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    return str(out["module"]), float(out["seconds"])


def imported_modules(folder: Path) -> tuple[list[Any], float]:
    """Every module of the dump, imported; and the seconds it took."""
    from tilefit.toolchains import read
    from tilefit.toolchains.base import ImportOptions

    started = time.monotonic()
    found = read("xla", [str(folder)], ImportOptions()).imported
    return found, time.monotonic() - started


def module_name(imported: Any) -> str:
    """``jit_tf_step`` of the capture ``module_0000.jit_tf_step`` (or ``....alloc3``)."""
    return str(imported.capture.name).split(".")[1]


def measure(name: str, size: int, time_limit: float, label: str) -> list[Row]:
    from tilefit.bounds.deficit import bound
    from tilefit.verdicts.check import check
    from tilefit.verdicts.imported import at_own_heap
    from tilefit.verdicts.solving import solve

    folder = Path(tempfile.mkdtemp(prefix="tilefit-xla-"))
    try:
        module, compile_s = dump(name, size, folder)
        found, import_s = imported_modules(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    own = [i for i in found if module_name(i) == module]
    others = sorted({module_name(i) for i in found} - {module})
    if others:
        print(f"  ({name} size {label}: skipped helper modules {', '.join(others)})")
    if not own:
        raise SystemExit(f"{name} size {label}: no temp allocation of {module} in the dump")
    rows = []
    for item in own:
        capture = item.capture
        assert capture.origin is not None
        xla_check = check(at_own_heap(capture), item.placement)
        violations = [f"XLA: {v.kind}: {v.detail}" for v in xla_check.violations[:5]]
        report = bound(capture)
        lower = report.lower_bound
        started = time.monotonic()
        found_top = solve(capture, time_limit, minimize=True)
        solve_s = time.monotonic() - started
        least = found_top.least
        assert least is not None  # minimising: the least top's bounds
        placement = found_top.placement
        ours = None if placement is None else check(capture, placement)
        if ours is not None:
            violations += [f"tilefit: {v.kind}: {v.detail}" for v in ours.violations[:5]]
        rows.append(
            Row(
                program=name,
                size=label,
                values=item.values,
                requests=len(capture.requests),
                heap=capture.origin.heap,
                lower=lower,
                aligned=report.aligned.top,
                best=least.best_top,
                proven_lower=least.lower_bound,
                optimal=least.optimal,
                import_s=import_s,
                solve_s=solve_s,
                compile_s=compile_s,
                xla_valid=xla_check.valid,
                tilefit_valid=None if ours is None else ours.valid,
                violations=violations,
            )
        )
    return rows


HEADER = (
    f"{'program':23s} {'size':4s} {'values':>6s} {'reqs':>5s} {'XLA heap':>11s} "
    f"{'live bound':>11s} {'aligned':>11s} {'tilefit top':>11s} {'proven':6s} {'compile':>7s} "
    f"{'import':>6s} "
    f"{'solve':>5s} {'XLA valid':9s} {'tilefit valid'}"
)


def line(row: Row) -> str:
    best = "-" if row.best is None else f"{row.best:,}"
    ours = "-" if row.tilefit_valid is None else _yes(row.tilefit_valid)
    return (
        f"{row.program:23s} {row.size:4s} {row.values:6d} {row.requests:5d} {row.heap:11,} "
        f"{row.lower:11,} {row.aligned:11,} {best:>11s} {_yes(row.optimal):6s} "
        f"{row.compile_s:7.1f} {row.import_s:6.2f} {row.solve_s:5.1f} "
        f"{_yes(row.xla_valid):9s} {ours}"
    )


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def summary(rows: list[Row], time_limit: float) -> list[str]:
    n = len(rows)
    at_bound = [r for r in rows if r.heap == r.lower]
    above = [r for r in rows if r.heap > r.lower]
    lower_top = [r for r in rows if r.best is not None and r.best < r.heap]
    proved = [r for r in above if r.proven_lower >= r.heap]
    open_ = [r for r in above if r not in lower_top and r not in proved]
    lines = [f"modules: {n}, {sum(r.values for r in rows):,} values in all"]
    lines.append(f"XLA's heap equals the live lower bound (XLA optimal): {len(at_bound)}/{n}")
    gaps = f" by {_spread([(r.heap - r.lower, r.heap) for r in above])}" if above else ""
    lines.append(f"XLA's heap above the live lower bound: {len(above)}/{n}{gaps}")
    padded = [r for r in rows if r.aligned > r.lower]
    if padded:
        gain = _spread([(r.aligned - r.lower, r.heap) for r in padded])
        lines.append(f"  the aligned lower bound above the live one: {len(padded)}/{n}, by {gain}")
    at_aligned = [r for r in above if r.heap <= r.aligned]
    lines.append(
        f"  XLA's heap equals the aligned lower bound (XLA optimal): {len(at_aligned)}/{len(above)}"
    )
    lines.append(f"  tilefit found a lower top: {len(lower_top)}/{len(above)}")
    for r in lower_top:
        assert r.best is not None
        proof = "proven optimal" if r.optimal else "not proven optimal"
        lines.append(
            f"    {r.program} {r.size}: {r.best:,} B, {r.heap - r.best:,} B "
            f"({_pct((r.heap - r.best) / r.heap)}) below XLA's heap, {proof}"
        )
    if lower_top:
        saved = [(r.heap - r.best, r.heap) for r in lower_top if r.best is not None]
        lines.append(f"    lower by {_spread(saved)}")
    lines.append(
        f"  tilefit proved XLA's heap optimal (no lower top exists): {len(proved)}/{len(above)}"
    )
    if open_:
        names = ", ".join(f"{r.program} {r.size}" for r in open_)
        lines.append(f"  neither beaten nor proven optimal within the time limit: {names}")
    optimal = len(at_bound) + len(proved)
    lines.append(f"XLA optimal in all (live bound, aligned bound or proof): {optimal}/{n}")
    proven = [r for r in rows if r.optimal]
    lines.append(f"tilefit's top proven optimal: {len(proven)}/{n}")
    decided = [r for r in rows if r.proven_lower >= r.heap or (r.optimal and r.best is not None)]
    lines.append(
        f"proven either way (XLA optimal, or tilefit's lower top the least): {len(decided)}/{n}"
    )
    for r in rows:
        if r in decided:
            continue
        best = "none" if r.best is None else f"{r.best:,} B"
        lines.append(
            f"  open: {r.program} {r.size}: XLA {r.heap:,} B, best {best}, no top below "
            f"{r.proven_lower:,} B proven ({(r.best or r.heap) - r.proven_lower:,} B open)"
        )
    late = [r for r in rows if r.solve_s > time_limit + 1]
    if late:
        names = ", ".join(f"{r.program} {r.size} {r.solve_s:.1f} s" for r in late)
        lines.append(f"searches over the {time_limit:g} s limit by more than 1 s: {names}")
    return lines


def _spread(pairs: list[tuple[int, int]]) -> str:
    """``40-316 B (0.031%-0.52% of XLA's heap)`` from (bytes, heap) pairs."""
    gaps = [g for g, _ in pairs]
    shares = [g / h for g, h in pairs]
    return f"{min(gaps):,}-{max(gaps):,} B ({_pct(min(shares))}-{_pct(max(shares))} of XLA's heap)"


def _pct(share: float) -> str:
    """A share as a percentage with two significant digits: ``0.52%``, ``0.000035%``."""
    if share <= 0:
        return "0%"
    digits = max(0, 1 - math.floor(math.log10(share * 100)))
    return f"{share * 100:.{digits}f}%"


def checks(rows: list[Row]) -> list[tuple[str, list[str]]]:
    """Each assertion and the modules that break it."""

    def names(bad: list[Row]) -> list[str]:
        return [f"{r.program} {r.size}" for r in bad]

    return [
        ("every XLA placement passes the referee", names([r for r in rows if not r.xla_valid])),
        (
            "the live lower bound never exceeds XLA's heap",
            names([r for r in rows if r.lower > r.heap]),
        ),
        (
            "every tilefit placement passes the referee",
            names([r for r in rows if r.tilefit_valid is False]),
        ),
        (
            "the search never proves XLA's own heap too small",
            names([r for r in rows if r.proven_lower > r.heap]),
        ),
        (
            "the aligned lower bound never exceeds XLA's heap or tilefit's top",
            names([r for r in rows if r.aligned > min(r.heap, r.best or r.heap)]),
        ),
    ]


def import_speed() -> bool:
    """Import one module of 10,000 values or more, timed; False when the target is missed."""
    folder = Path(tempfile.mkdtemp(prefix="tilefit-xla-"))
    try:
        module, compile_s = dump("deep_rnn", 0, folder)
        found, seconds = imported_modules(folder)
        _, again = imported_modules(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    own = max((i for i in found if module_name(i) == module), key=lambda i: i.values)
    met = seconds < IMPORT_SPEED_TARGET and own.values >= IMPORT_SPEED_VALUES
    print(
        f"{module}: {own.values:,} values, {len(own.capture.requests):,} requests, "
        f"compiled in {compile_s:.0f} s"
    )
    print(
        f"import {seconds:.2f} s (read again: {again:.2f} s); target under "
        f"{IMPORT_SPEED_TARGET:g} s for {IMPORT_SPEED_VALUES:,} values or more: "
        + ("met" if met else "NOT met")
    )
    return met


def warm_up() -> float:
    """Compile the search's kernel once, so that no solve below pays for it."""
    from tilefit.search.compiling import ensure_compiled

    started = time.monotonic()
    ensure_compiled()
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one size per program, 2 s limit")
    parser.add_argument("--time-limit", type=float, default=None, help="seconds per solve")
    parser.add_argument(
        "--no-import-speed", action="store_true", help="skip the 10,000-value import check"
    )
    parser.add_argument("--compile", nargs=2, metavar=("PROGRAM", "SIZE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compile:
        return compile_only(args.compile[0], int(args.compile[1]))
    if importlib.util.find_spec("jax") is None:
        print("skipped: jax is not installed (pip install 'tilefit[xla]')")
        return 0
    time_limit = args.time_limit if args.time_limit is not None else 2.0 if args.quick else 10.0
    sizes = [0] if args.quick else [0, 1, 2]
    jax_version = _jax_version()
    ready = warm_up()
    print(
        f"python {platform.python_version()}, jax {jax_version}, XLA on CPU, {platform.machine()}; "
        f"solve --minimize {time_limit:g} s per module (search ready in {ready:.1f} s, not counted)"
    )
    print()
    print(HEADER)
    rows: list[Row] = []
    for name in PROGRAMS:
        for size in sizes:
            for row in measure(name, size, time_limit, "SML"[size]):
                rows.append(row)
                print(line(row), flush=True)
                for text in row.violations:
                    print(f"    {text}", flush=True)
    print()
    print("\n".join(summary(rows, time_limit)))
    failed = False
    for text, bad in checks(rows):
        print(f"check: {text}: " + ("yes" if not bad else f"NO ({', '.join(bad)})"))
        failed = failed or bool(bad)
    if not args.no_import_speed:
        print()
        print("== import speed ==")
        import_speed()
    return 1 if failed else 0


def _jax_version() -> str:
    done = subprocess.run(
        [sys.executable, "-c", "import jax; print(jax.__version__)"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or "?"


if __name__ == "__main__":
    sys.exit(main())
