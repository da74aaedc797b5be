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
import platform
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iree_architectures import MODELS, emit

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
    from tilefit.toolchains.iree.export import export_plans, pack_values
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
        values = pack_values(found_pack, capture, broken, alignment.range)
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
