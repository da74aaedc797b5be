"""Real architectures through IREE: its transient slabs, tilefit's, and IREE's runtime.

Run from the repository root, in a venv with the `iree` and `xla` extras
(`pip install -e '.[test,xla,iree]'`; jax exports the programs):

    .venv/bin/python benchmarks/iree_models.py      # about 5-10 minutes on 2 cores

Options: `--time-limit S` (seconds of the search per pack, default 10),
`--only NAME` (one model), `--keep DIR` (keep each program's .mlir there).
Without jax or IREE it says so and exits 0.

Five architectures written in JAX with seeded random weights (held in the
program as constants), lowered to StableHLO text (`jax.jit(f).lower(...)
.as_text()`): MobileNetV2 at 224 px, a MobileBERT-style encoder (4 layers,
sequence 128, bottleneck 128 inside width 512, two stacked FFNs), a stack of
two BERT-base layers (width 768, 12 heads, FFN 3072, sequence 128), one
decoder step over a KV cache (4 layers, width 512, 8 heads, 256 cached
positions, a vocabulary of 8,000) and a three-level UNet at 64 px. Each is
imported with `tilefit import iree` (iree-compile 3.13.0, llvm-cpu for the
host), and each static transient pack becomes one row: its slices; IREE's
slab (confirmed by the module after IREE's packing pass); the live lower
bound; IREE's own greedy fed the slices sorted by size, largest first (the
one-line change upstream could make); tilefit's slab (`solve(...,
minimize=True)`, what `tilefit solve --minimize` runs) and whether it is
proven minimal, with its seconds. Then every pack's plan is exported at once
(`tilefit export iree`: refereed, written, compiled, both modules run on
`iree.runtime` local-task on two seeded input sets) and the outputs compared
bit for bit; and for each pack a broken plan (of two slices that live
together, the pair sharing the most op positions, the larger moved onto the
other's offset) is compiled and run, and must change the outputs. Exit 1 if
a check fails: tilefit's slab above IREE's, or the bound reached but not
proven, outputs not identical, a broken plan changing nothing.

Beside them, the two IREE traces of the shared data
(`../shared/traces/iree_mobilebert.csv`, `iree_mobilenet.csv`: an older IREE's
slices with its own offsets; skipped, said, when `../shared` is absent):
read as IREE reads a slice (the trace's `upper` is the last op position,
inclusive), the packer reimplemented here gives every one of IREE's offsets;
per trace: IREE's slab, the live bound, the greedy by size, tilefit's slab
and whether it is proven minimal.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
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
    path.write_text(jax.jit(forward).lower(*args).as_text())
    return path


# ---------------------------------------------------------------------------
# The measurements


@dataclass(frozen=True)
class Row:
    model: str
    pack: str
    slices: int
    iree: int
    bound: int
    by_size: int
    tilefit: int
    proven: bool
    seconds: float
    identical: bool
    broken_differs: bool


def _by_size(capture: Any, alignment: int) -> int:
    """IREE's greedy fed the slices sorted by size, largest first (ties: pack order)."""
    from tilefit.toolchains.iree.greedy import pack_greedily
    from tilefit.toolchains.iree.packs import Slice

    slices = [Slice(i, r.start, r.end - 1, r.size, r.id) for i, r in enumerate(capture.requests)]
    ordered = sorted(slices, key=lambda s: -(s.size or 0))
    return pack_greedily(ordered, alignment, alignment).slab


def _broken(capture: Any, offsets: dict[str, int]) -> dict[str, int]:
    """Two slices that live together, the pair sharing the most op positions (then the
    largest), the larger moved onto the other's offset."""
    requests = capture.requests
    best: tuple[int, int, int, int] | None = None
    for i, a in enumerate(requests):
        for j in range(i + 1, len(requests)):
            b = requests[j]
            shared = min(a.end, b.end) - max(a.start, b.start)
            if shared > 0:
                key = (shared, min(a.size, b.size), -i, -j)
                if best is None or key > best:
                    best = key
    assert best is not None, "no two slices live together"
    a, b = requests[-best[2]], requests[-best[3]]
    moved, onto = (a, b) if a.size >= b.size else (b, a)
    return {**offsets, moved.id: offsets[onto.id]}


def measure(name: str, program: Path, time_limit: float) -> list[Row]:
    from tilefit.bounds.deficit import bound
    from tilefit.model.placement import Placement
    from tilefit.toolchains import read
    from tilefit.toolchains.base import ExportOptions
    from tilefit.toolchains.iree import alignment_of
    from tilefit.toolchains.iree.capture import capture_name
    from tilefit.toolchains.iree.compiler import Flags, finish
    from tilefit.toolchains.iree.export import _values, export_plans
    from tilefit.toolchains.iree.module import read_stages
    from tilefit.toolchains.iree.reading import found_packs
    from tilefit.toolchains.iree.rewrite import Written, with_offsets
    from tilefit.toolchains.iree.runtime import run_module
    from tilefit.verdicts.solving import solve

    where = str(program)
    flags = Flags()
    alignment = alignment_of(flags)
    reading = read("iree", [where])
    for skipped in reading.skipped:
        print(f"  {name}: skipped {skipped.source}: {skipped.reason}", file=sys.stderr)
    plans: list[tuple[Any, Placement, bool, float]] = []
    for item in reading.imported:
        started = time.monotonic()
        found = solve(item.capture, time_limit, minimize=True)
        seconds = time.monotonic() - started
        best = found.placement if found.placement is not None else item.placement
        proven = found.least is not None and found.least.optimal
        plans.append((item, best, proven, seconds))
    exported = export_plans(program, [p[1] for p in plans], ExportOptions(True))
    assert exported.runtime is not None
    stages = read_stages(program, flags, module_scope=True)
    packs = {capture_name(program.stem, f.pack): f for f in found_packs(stages)}
    module = stages.before[0].text
    own = run_module(finish(module, flags, where)[1], where)
    rows = []
    for (item, best, proven, seconds), part in zip(plans, exported.parts, strict=True):
        capture = item.capture
        broken = _broken(capture, dict(best.offsets))
        found_pack = packs[capture.name]
        values = _values(found_pack, capture, broken, alignment.range)
        edited = with_offsets(module, [Written(found_pack.pack, found_pack.function, values)])
        differs = run_module(finish(edited, flags, where)[1], where) != own
        rows.append(
            Row(
                name,
                capture.name,
                len(capture.requests),
                part.before,
                bound(capture).lower_bound,
                _by_size(capture, alignment.range),
                part.after,
                proven,
                seconds,
                exported.runtime.identical,
                differs,
            )
        )
    return rows


SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "traces"
TRACES = ("iree_mobilebert", "iree_mobilenet")


def traces(time_limit: float) -> list[str]:
    """The shared IREE traces: IREE's offsets reproduced, its slab against the bound, the
    greedy by size and tilefit's (table rows; none when the shared data is absent)."""
    import csv

    from tilefit.bounds.deficit import bound
    from tilefit.model.capture import Capture, Memory, Range, Request
    from tilefit.model.placement import placement_top
    from tilefit.toolchains.iree.greedy import pack_greedily
    from tilefit.toolchains.iree.packs import Slice
    from tilefit.verdicts.solving import solve

    if not SHARED.is_dir():
        print(f"  traces skipped: {SHARED} is absent (the shared data)", file=sys.stderr)
        return []
    rows = []
    for name in TRACES:
        with (SHARED / f"{name}.csv").open() as file:
            lines = list(csv.DictReader(file))
        slices = [
            Slice(i, int(r["lower"]), int(r["upper"]), int(r["size"]), r["id"])
            for i, r in enumerate(lines)
        ]
        own = [int(r["offset"]) for r in lines]
        layout = pack_greedily(slices, 64, 64)
        same = sum(a == b for a, b in zip(layout.offsets, own, strict=True))
        by_size = pack_greedily(sorted(slices, key=lambda s: -(s.size or 0)), 64, 64).slab
        requests = tuple(
            Request(f"s{s.index}", s.size or 0, s.first, s.last + 1, alignment=64) for s in slices
        )
        slab = max(o + (s.size or 0) for o, s in zip(own, slices, strict=True))
        horizon = max(r.end for r in requests)
        capture = Capture(name, horizon, Memory(slab, (Range(0, slab),)), requests)
        started = time.monotonic()
        found = solve(capture, time_limit, minimize=True)
        seconds = time.monotonic() - started
        ours = slab if found.placement is None else placement_top(capture, found.placement.offsets)
        proven = found.least is not None and found.least.optimal
        rows.append(
            f"| {name} | {len(slices)} | {same}/{len(slices)} | {slab:,} | "
            f"{bound(capture).lower_bound:,} | {by_size:,} | {ours:,} | "
            f"{'yes' if proven else 'no'} | {seconds:.1f} |"
        )
    return rows


def _row(r: Row) -> str:
    saved = r.iree - r.tilefit
    share = f"{saved:,} ({100 * saved / r.iree:.1f}%)" if saved else "0"
    return (
        f"| {r.model} | {r.pack.split('.', 1)[1]} | {r.slices} | {r.iree:,} | {r.bound:,} | "
        f"{r.by_size:,} | {r.tilefit:,} | {share} | {'yes' if r.proven else 'no'} | "
        f"{r.seconds:.1f} | {'yes' if r.identical else 'NO'} | "
        f"{'yes' if r.broken_differs else 'NO'} |"
    )


def _failures(rows: list[Row]) -> list[str]:
    failed = []
    for r in rows:
        where = f"{r.model} {r.pack}"
        if r.tilefit > r.iree:
            failed.append(f"{where}: tilefit's slab above IREE's")
        if r.tilefit == r.bound and not r.proven:
            failed.append(f"{where}: the bound reached but not proven")
        if not r.identical:
            failed.append(f"{where}: outputs not identical")
        if not r.broken_differs:
            failed.append(f"{where}: the broken plan changes nothing")
    return failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--only", choices=sorted(MODELS))
    parser.add_argument("--keep", metavar="DIR")
    args = parser.parse_args()
    for needed, extra in (("jax", "xla"), ("iree.compiler", "iree"), ("iree.runtime", "iree")):
        if importlib.util.find_spec(needed.split(".")[0]) is None or (
            "." in needed and importlib.util.find_spec(needed) is None
        ):
            print(f"benchmarks/iree_models.py needs {needed}: pip install 'tilefit[{extra}]'")
            return 0
    from importlib.metadata import version

    names = [args.only] if args.only else list(MODELS)
    started = time.monotonic()
    # the traces first: their search forks workers, which must not follow jax's threads
    shared = traces(args.time_limit)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="iree-models-") as temporary:
        folder = Path(args.keep) if args.keep else Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        for name in names:
            began = time.monotonic()
            program = emit(name, folder)
            rows += measure(name, program, args.time_limit)
            print(f"  {name}: {time.monotonic() - began:.0f} s", file=sys.stderr)
    print(
        f"# iree-base-compiler {version('iree-base-compiler')}, iree-base-runtime "
        f"{version('iree-base-runtime')}, jax {version('jax')}, Python "
        f"{platform.python_version()}, {platform.machine()}; llvm-cpu for the host; "
        f"search {args.time_limit:g} s per pack"
    )
    print(
        "| model | pack | slices | IREE's slab | live bound | IREE's greedy by size | "
        "tilefit's slab | saved | proven | seconds | outputs identical | broken plan differs |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(_row(row))
    print(
        f"\n{len(rows)} packs of {len(names)} models and {len(shared)} traces in "
        f"{time.monotonic() - started:.0f} s"
    )
    if shared:
        print(
            "\n| trace | slices | IREE's offsets reproduced | IREE's slab | live bound | "
            "IREE's greedy by size | tilefit's slab | proven | seconds |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        print("\n".join(shared))
    failed = _failures(rows)
    for line in failed:
        print(f"FAILED: {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
