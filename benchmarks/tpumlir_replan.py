"""TPU-MLIR: every compiled model's layer groups replanned, exported and run on the simulator.

Run from the repository root, in tilefit's venv, after `benchmarks/tpumlir_models.py`
compiled the models into its work folder, with TPU-MLIR's venv named as there:

    TILEFIT_TPUMLIR_VENV=.venv-tpumlir .venv/bin/python benchmarks/tpumlir_replan.py

Options: `--work DIR` (the models' work folder, default out/tpumlir), `--models a,b`,
`--chips bm1684x,bm1688` (default both: TPU-MLIR's codegen from a `_final.mlir` fails on
bm1684x2 on its own plan too), `--time-limit S` (each replan's, default 3), `--out DIR`
(the bmodels written, default WORK/replan).

Per model and chip, `tilefit replan tpumlir NAME_final.mlir --json`: each group's LMEM,
TPU-MLIR's plan and tilefit's, the bank pairs each breaks of those TPU-MLIR keeps apart,
whether both bmodels' outputs are identical bit for bit on the chip simulator, and
whether tilefit's plans are proven the least. A run whose outputs differ, or that ends
on bad input, makes the exit code 1; one with nothing lower (exit 1 of replan, outputs
identical) is a row like any other.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TILEFIT = Path(sys.executable).parent / "tilefit"
CHIPS = ("bm1684x", "bm1688")


def finals(work: Path, models: set[str], chips: tuple[str, ...]) -> list[tuple[str, str, Path]]:
    """Each compiled model's plan in the work folder: (model, chip, its `_final.mlir`)."""
    found = []
    for folder in sorted(p for p in work.iterdir() if p.is_dir()):
        if models and folder.name not in models:
            continue
        for chip in chips:
            final = folder / f"{folder.name}_{chip}_f32_final.mlir"
            if final.exists():
                found.append((folder.name, chip, final))
    return found


def replan(final: Path, out: Path, limit: float) -> tuple[int, dict[str, Any] | None, float]:
    """`tilefit replan tpumlir` on one plan: its exit code, its `--json` and its seconds."""
    began = time.monotonic()
    command = [str(TILEFIT), "replan", "tpumlir", str(final), "-o", str(out)]
    done = subprocess.run(
        [*command, "--time-limit", str(limit), "--json"],
        capture_output=True,
        text=True,
        env=os.environ,
        check=False,
    )
    seconds = time.monotonic() - began
    try:
        return done.returncode, json.loads(done.stdout), seconds
    except json.JSONDecodeError:
        sys.stderr.write(done.stderr)
        return done.returncode, None, seconds


def row(model: str, chip: str, code: int, out: dict[str, Any] | None, seconds: float) -> str:
    if out is None:
        return f"| {model} | {chip} | - | exit {code}: no answer | - | - | - | {seconds:.0f} |"
    packs = out.get("packs", [])
    lmem = "; ".join(f"{p['before']:,} -> {p['after']:,}" for p in packs)
    banks = "; ".join(
        f"{p['banks']['broken_before']} -> {p['banks']['broken_after']} of {p['banks']['pairs']}"
        for p in packs
        if p.get("banks") is not None
    )
    runtime = out.get("runtime") or {}
    same = "identical" if runtime.get("outputs_identical") else "DIFFERENT"
    proven = "yes" if out.get("proven_minimal") else "no"
    return (
        f"| {model} | {chip} | {len(packs)} | {lmem} | {banks or '-'} | {same} | {proven} "
        f"| {seconds:.0f} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", default="out/tpumlir", help="tpumlir_models.py's work folder")
    parser.add_argument("--models", default="", help="comma-separated model names")
    parser.add_argument("--chips", default=",".join(CHIPS), help="comma-separated chips")
    parser.add_argument("--time-limit", type=float, default=3.0, help="each replan's seconds")
    parser.add_argument("--out", default=None, help="where the bmodels go (default WORK/replan)")
    args = parser.parse_args()
    if not os.environ.get("TILEFIT_TPUMLIR_VENV"):
        print("TILEFIT_TPUMLIR_VENV names no TPU-MLIR venv (bash .ci/tpumlir makes one)")
        return 0
    work = Path(args.work)
    if not work.is_dir():
        print(f"{work}: no such work folder (benchmarks/tpumlir_models.py --work {work} makes it)")
        return 0
    out = Path(args.out) if args.out else work / "replan"
    out.mkdir(parents=True, exist_ok=True)
    models = {m for m in args.models.split(",") if m}
    chips = tuple(c for c in args.chips.split(",") if c)
    header = "| model | chip | groups | LMEM per group, B (TPU-MLIR -> tilefit) "
    header += "| bank pairs broken (TPU-MLIR -> tilefit) | outputs | proven least | seconds |"
    print(header)
    print("|---|---|---:|---|---|---|---|---:|")
    failed = 0
    before = after = groups = lower = 0
    for model, chip, final in finals(work, models, chips):
        code, answer, seconds = replan(final, out / f"{model}_{chip}.bmodel", args.time_limit)
        print(row(model, chip, code, answer, seconds), flush=True)
        runtime = (answer or {}).get("runtime") or {}
        if answer is None or not runtime.get("outputs_identical"):
            failed += 1
            continue
        for pack in answer.get("packs", []):
            groups += 1
            before += pack["before"]
            after += pack["after"]
            lower += pack["after"] < pack["before"]
    if groups:
        print(
            f"\n{groups} groups, {lower} placed lower; LMEM {before:,} B -> {after:,} B "
            f"({100 * (before - after) / before:.1f}% less); runs not identical or failed: {failed}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
