"""The XLA importer on real dumps, compiled here by jax on the CPU at test time.

The test of the import is that XLA's own placement passes the referee and that
the live and aligned lower bounds never exceed XLA's heap. The programs are
small and are not the benchmark's (benchmarks/xla_programs.py), so the two check each other.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tilefit.bounds.deficit import bound
from tilefit.cli import main
from tilefit.toolchains import read
from tilefit.toolchains.base import ImportOptions
from tilefit.verdicts.check import check
from tilefit.verdicts.imported import at_own_heap

pytest.importorskip("jax", reason="jax is not installed: pip install 'tilefit[xla]'")

PROGRAM = """
import numpy as np, jax, jax.numpy as jnp
batch, width = {batch}, 96
r = np.random.default_rng(1)
params = [(r.standard_normal((width, width)).astype(np.float32) * 0.1,
           np.zeros(width, np.float32)) for _ in range(3)]
x = r.standard_normal((batch, width)).astype(np.float32)

def norm(h):
    return (h - h.mean(-1, keepdims=True)) / (h.std(-1, keepdims=True) + 1e-5)

def loss(params, x):
    h = x
    for w, b in params:
        h = norm(jax.nn.silu(h @ w + b)) + h
    def refine(i, h):
        return jnp.tanh(h @ params[0][0]) * 0.5 + h * 0.5
    h = jax.lax.fori_loop(0, 3, refine, h)
    h = jax.lax.cond(h.sum() > 0, lambda v: v * 2.0, lambda v: jnp.sin(v) @ params[1][0], h)
    return (h ** 2).mean()

def train_step(params, x):
    value, grads = jax.value_and_grad(loss)(params, x)
    return value, jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)

jax.block_until_ready(jax.jit(train_step)(params, x))
"""


def _dump(folder: Path, batch: int) -> Path:
    env = dict(os.environ, XLA_FLAGS=f"--xla_dump_to={folder}", JAX_PLATFORMS="cpu")
    source = textwrap.dedent(PROGRAM.format(batch=batch))
    subprocess.run([sys.executable, "-c", source], env=env, check=True, timeout=300)
    return folder


@pytest.fixture(scope="module")
def dumps(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("xla")
    return _dump(root / "batch8", 8), _dump(root / "batch32", 32)


def test_xla_placement_passes_the_referee(dumps: tuple[Path, Path]) -> None:
    for folder in dumps:
        imported = read("xla", [str(folder)], ImportOptions()).imported
        names = [item.capture.name for item in imported]
        assert any(name.endswith(".jit_train_step") for name in names), names
        for item in imported:
            capture = item.capture
            assert capture.origin is not None
            checked = check(at_own_heap(capture), item.placement)
            assert checked.valid, (capture.name, checked.violations[:3])
            report = bound(capture)
            assert report.lower_bound <= capture.origin.heap
            # XLA's own placement ends at its heap: the aligned bound never passes it.
            assert report.lower_bound <= report.aligned.top <= capture.origin.heap
            assert item.values >= len(capture.requests) > 0


def test_the_loop_state_is_one_buffer_and_requests_name_hlo_values(
    dumps: tuple[Path, Path],
) -> None:
    [step] = [
        item
        for item in read("xla", [str(dumps[0])], ImportOptions()).imported
        if item.capture.name.endswith(".jit_train_step")
    ]
    labels = [r.label or "" for r in step.capture.requests]
    # The while loop's state (init, body parameter, root, result) shares one buffer.
    assert any("shares its buffer with" in label for label in labels)
    shapes = [label.split(";")[0] for label in labels]
    assert all(shape.startswith(("f32[", "s32[", "pred[", "(")) for shape in shapes), shapes


def test_diagnose_and_diff_on_imports(
    dumps: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    small, large = tmp_path / "small", tmp_path / "large"
    assert main(["import", "xla", str(dumps[0]), "-o", str(small)]) == 0
    capsys.readouterr()
    [base] = small.glob("*.jit_train_step.json")
    heap = json.loads(base.read_text())["origin"]["heap"]
    # The larger batch, asked to fit in the smaller batch's heap.
    assert main(["import", "xla", str(dumps[1]), "--capacity", str(heap), "-o", str(large)]) == 0
    capsys.readouterr()
    [other] = large.glob("*.jit_train_step.json")
    assert main(["diagnose", str(base), "--time-limit", "5"]) == 0
    assert "XLA's heap" in capsys.readouterr().out
    main(["diff", str(base), str(other), "--json"])
    diff = json.loads(capsys.readouterr().out)
    windows = diff["windows"]
    assert windows, "the larger batch overloads the smaller batch's heap"
    # Each window is explained by HLO values: the requests are named after them.
    ids = {r["id"] for r in json.loads(other.read_text())["requests"]}
    named = {cause["id"] for w in windows for cause in w["causes"]}
    assert named and named <= ids, windows[0]
    assert diff["counts"]["resized"] > 0


SMALL = """
import jax, jax.numpy as jnp
x = jnp.arange(64.0)          # a module of its own, with no temp heap
y = jnp.ones((8, 8)) * 2.0    # and another
def f(a, b):
    return jnp.tanh(a @ b).sum() + jnp.sin(a).mean()
jax.block_until_ready(jax.jit(f)(y, y.T))
"""


def test_batch_on_a_dump_folder_skips_modules_with_nothing_to_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tilefit.toolchains.xla import find_modules, read_module

    folder = tmp_path / "dump"
    env = dict(os.environ, XLA_FLAGS=f"--xla_dump_to={folder}", JAX_PLATFORMS="cpu")
    subprocess.run([sys.executable, "-c", SMALL], env=env, check=True, timeout=300)
    modules = find_modules([str(folder)])
    empty = [m for m in modules if not read_module(m)]
    assert empty, "modules without a temp heap (the case batch failed on)"
    assert len(empty) < len(modules)
    db = tmp_path / "r.sqlite"
    assert main(["batch", str(folder), "--db", str(db), "--time-limit", "5", "--json"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert summary["captures"] == len(modules) - len(empty) and summary["errors"] == 0
    assert f"skipped {len(empty)} input" in captured.err
    # import says what it skipped as well
    assert main(["import", "xla", str(folder), "--json"]) == 0
    captured = capsys.readouterr()
    assert len(json.loads(captured.out)["skipped"]) == len(empty)
    assert captured.err.count("no preallocated temp allocation") == len(empty)


SOURCES = """
import jax, jax.numpy as jnp

def layer(w, x):
    h = jnp.tanh(x @ w)
    return h * jax.nn.sigmoid(h @ w.T @ w)

def loss(w, x):
    return (layer(w, layer(w, x)) ** 2).mean()

w = jnp.ones((96, 96)) * 0.01
x = jnp.ones((64, 96))
jax.block_until_ready(jax.jit(jax.grad(loss))(w, x))
"""


def test_requests_name_their_source_lines_and_what_they_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "model.py"
    program.write_text(SOURCES)
    folder = tmp_path / "dump"
    env = dict(os.environ, XLA_FLAGS=f"--xla_dump_to={folder}", JAX_PLATFORMS="cpu")
    subprocess.run([sys.executable, str(program)], env=env, check=True, timeout=300)
    [item] = [i for i in read("xla", [str(folder)]).imported if i.capture.name.endswith("jit_loss")]
    requests = item.capture.requests
    lines = {r.source for r in requests if r.source is not None}
    assert lines and all(s.startswith(f"{tmp_path.name}/model.py:") for s in lines), lines
    assert any("jit(loss)" in (r.label or "") and " at " in (r.label or "") for r in requests)
    assert {r.cls for r in requests} - {"default"}, "classes say what the values are"
    # diagnose at less memory groups what must leave the window by source line
    out = tmp_path / "caps"
    heap = item.capture.origin.heap if item.capture.origin else 0
    smaller = str(max(64, heap * 3 // 4))
    assert main(["import", "xla", str(folder), "--capacity", smaller, "-o", str(out)]) == 0
    capsys.readouterr()
    [capture] = out.glob("*jit_loss.json")
    main(["diagnose", str(capture), "--time-limit", "5"])
    text = capsys.readouterr().out
    assert "by source: " in text and "model.py:" in text, text
