"""TPU-MLIR's local-memory allocator on models of tilefit's own: every attempt, replayed.

Run from the repository root, in tilefit's venv (3.11+), with TPU-MLIR's venv
(Python 3.10, made by `bash .ci/tpumlir`) named by TILEFIT_TPUMLIR_VENV:

    TILEFIT_TPUMLIR_VENV=.venv-tpumlir .venv/bin/python benchmarks/tpumlir_models.py

Options: `--models a,b` (default: all of MODELS; any `conv|dw|tfm_cCHANNELS_sSIZE`),
`--chips bm1684x,bm1688`, `--work DIR` (where TPU-MLIR works, default out/tpumlir;
`--reuse` keeps what a run there already made), `--record DIR` (the small recorded
runs the tests read: each chosen run's trace cut to chosen attempts, its
`_tpu_opt.mlir` and its `_final.mlir`; `--record-runs`, `--record-limit`).

Each model (benchmarks/tpumlir_onnx.py makes it in code, seeded) goes through
`model_transform`, then for each chip `model_deploy --quantize F32 --debug`, then the
layer-group pass again with TPU-MLIR's debugger on (the allocator's trace: every
group tried, its timestep table, every allocation attempt). Per model and chip: the
groups in the plan, how many were cut into slices, how many of those plans the
trace shows as an attempt, the attempts in the trace, the failed ones and of them
those whose busiest timestep fits in LMEM (not short of memory at any one timestep:
fragmentation or a pairwise-meeting deficit, for the cyclic captures to decide), and
whether tilefit's replay of the allocator reproduces every attempt whose timestep
table the trace prints (every round's order and candidates, every address and the
failure), and whether each plan the trace shows passes tilefit's referee on the
attempt's cyclic capture. A second table decides every failed attempt
(benchmarks/tpumlir_decide.py: fragmentation with a refereed placement, capacity with
its bound, the slices fragmentation cost; `--time-limit` seconds each, default 10).
Exit 1 if an attempt is not reproduced, a plan fails the referee, or a fragmentation
verdict's placement does.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from tilefit.model.errors import InputError  # noqa: E402
from tilefit.toolchains.tpumlir import pipeline  # noqa: E402
from tilefit.toolchains.tpumlir.agreement import differences  # noqa: E402
from tilefit.toolchains.tpumlir.attempt import Attempt  # noqa: E402
from tilefit.toolchains.tpumlir.capture import capture_of, placement_of  # noqa: E402
from tilefit.toolchains.tpumlir.final import read_final  # noqa: E402
from tilefit.toolchains.tpumlir.graph import read_graph  # noqa: E402
from tilefit.toolchains.tpumlir.live import busiest  # noqa: E402
from tilefit.toolchains.tpumlir.outcome import made, with_plan_tables  # noqa: E402
from tilefit.toolchains.tpumlir.problem import problem_of  # noqa: E402
from tilefit.toolchains.tpumlir.replay import replay  # noqa: E402
from tilefit.toolchains.tpumlir.tools import Venv, find_venv, run  # noqa: E402
from tilefit.toolchains.tpumlir.trace import read_trace  # noqa: E402
from tilefit.verdicts.check import check  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from tpumlir_decide import Decided, decide_run, decided_table, decided_totals  # noqa: E402

# FAMILY_cCHANNELS_sSIZE (see tpumlir_onnx.py); --models takes any such name
MODELS = (
    "conv_c16_s64",
    "conv_c16_s128",
    "conv_c32_s112",
    "conv_c64_s80",
    "conv_c16_s224",
    "dw_c64_s112",
    "dw_c128_s56",
    "tfm_c256_s128",
    "tfm_c512_s256",
)
_NAME = re.compile(r"^(conv|dw|tfm)_c(\d+)_s(\d+)$")


def input_shape(model: str) -> list[int] | None:
    """The ONNX input's shape a model's name gives (None: not a model name)."""
    match = _NAME.match(model)
    if match is None:
        return None
    family, channels, size = match.group(1), int(match.group(2)), int(match.group(3))
    return [1, size, channels] if family == "tfm" else [1, channels, size, size]


CHIPS = ("bm1684x", "bm1688", "bm1684x2")


@dataclass(frozen=True, slots=True)
class Compiled:
    model: str
    chip: str
    deployed: pipeline.Deployed
    seconds: float
    note: str | None = None  # where TPU-MLIR failed after the layer groups


def compile_model(
    venv: Venv, work: Path, model: str, chips: tuple[str, ...], reuse: bool
) -> list[Compiled]:
    folder = work / model
    folder.mkdir(parents=True, exist_ok=True)
    onnx = folder / f"{model}.onnx"
    mlir = folder / f"{model}.mlir"
    start = time.perf_counter()
    if not (reuse and mlir.exists()):
        run(
            venv, ["python", str(ROOT / "benchmarks" / "tpumlir_onnx.py"), model, onnx.name], folder
        )
        shape = input_shape(model)
        assert shape is not None  # main checked the name
        pipeline.transform(venv, folder, model, onnx, shape)
    done = []
    for chip in chips:
        began = time.perf_counter()
        deployed = pipeline.Deployed(folder, model, chip, "F32")
        note = None
        if not (reuse and deployed.final.exists()):
            try:
                deployed = pipeline.deploy(venv, mlir, model, chip)
            except InputError as error:
                if not deployed.final.exists():  # failed before the plan: nothing to read
                    print(f"{model} {chip}: {error.rule}", file=sys.stderr)
                    continue
                note = f"model_deploy failed after the layer groups ({error.rule})"
        if not (reuse and deployed.trace.exists()):
            pipeline.trace(venv, deployed)
        done.append(Compiled(model, chip, deployed, time.perf_counter() - began, note))
    print(
        f"{model}: compiled for {', '.join(chips)} in {time.perf_counter() - start:.0f} s",
        file=sys.stderr,
    )
    return done


@dataclass(frozen=True, slots=True)
class Row:
    """One model on one chip."""

    model: str
    chip: str
    groups: int  # layer groups in the plan
    sliced: int  # of them, cut into more than one slice
    traced: int  # of them, whose plan is a successful attempt of the trace
    plan_conflicts: int  # tensors those plans put in banks they were to avoid
    attempts: int
    failed: int
    within: int  # failed attempts whose busiest timestep fits in LMEM
    reproduced: int  # attempts the replay matches round by round
    from_plan: int  # of the attempts replayed, those run on their plan's table (final.mlir)
    untabled: int  # attempts without a table (none printed, none from a plan)
    differing: tuple[str, ...]  # the first difference of each attempt not reproduced


def summarise(c: Compiled) -> tuple[Row, tuple[Attempt, ...]]:
    groups = read_final(c.deployed.final)
    read = read_trace(c.deployed.trace)
    graph = read_graph(c.deployed.tpu_opt)
    # an attempt whose table the trace never printed, and whose plan is a group's of
    # the final.mlir, runs on that group's own table
    attempts = with_plan_tables(read, groups)
    reproduced = untabled = 0
    differing = []
    conflicts: dict[int, int] = {}  # group -> bank conflicts of the last attempt making its plan
    for attempt in attempts:
        problem = problem_of(attempt, graph)
        if problem is None:
            untabled += 1
            continue
        replayed = replay(problem)
        found = differences(attempt, replayed)
        if attempt.success:  # its plan must pass tilefit's referee on its capture
            capture = capture_of(attempt, problem, f"{c.model} {c.chip}")
            placement = placement_of(attempt, capture)
            if placement is not None and not check(capture, placement).valid:
                found += ("TPU-MLIR's plan fails tilefit's referee on the attempt's capture",)
        if found:
            differing.append(f"attempt {attempt.index} (line {attempt.line}): {found[0]}")
        else:
            reproduced += 1
        for g in groups:
            if made(attempt, g):
                conflicts[g.index] = len(replayed.conflicts)
    row = Row(
        model=c.model,
        chip=c.chip,
        groups=len(groups),
        sliced=sum(g.slices.total > 1 for g in groups),
        traced=sum(any(made(a, g) for a in attempts) for g in groups),
        plan_conflicts=sum(conflicts.values()),
        attempts=len(attempts),
        failed=sum(not a.success for a in attempts),
        within=sum(
            not a.success and a.table is not None and busiest(a) <= a.chip.lmem_bytes
            for a in attempts
        ),
        reproduced=reproduced,
        from_plan=sum(
            a.table is not None and b.table is None for a, b in zip(attempts, read, strict=True)
        ),
        untabled=untabled,
        differing=tuple(differing),
    )
    return row, read


def table(rows: list[Row]) -> str:
    lines = [
        "| model | chip | groups | sliced | plan in trace | plan's bank conflicts | attempts "
        "| failed "
        "| failed, busiest step fits | replay reproduces | table from the plan | no table |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        replayed = r.attempts - r.untabled
        lines.append(
            f"| {r.model} | {r.chip} | {r.groups} | {r.sliced} | {r.traced} | {r.plan_conflicts} "
            f"| {r.attempts} "
            f"| {r.failed} | {r.within} | {r.reproduced} of {replayed} | {r.from_plan} "
            f"| {r.untabled} |"
        )
    return "\n".join(lines)


def record(
    c: Compiled, attempts: tuple[Attempt, ...], folder: Path, limit: int, chosen: list[int]
) -> list[Path]:
    """The run's files as the tests read them, small: the trace cut to the attempts
    chosen (by index; none chosen: those of the first group with a failed attempt), each
    with the lg_info and the timestep table before it, verbatim; the module the pass
    starts from; the plan."""
    if not chosen:
        shown = [a for a in attempts if a.group is not None]
        first = next((a for a in shown if not a.success), shown[0])
        chosen = [a.index for a in shown if a.group == first.group]
    lines = c.deployed.trace.read_text(errors="replace").splitlines()
    kept: list[str] = []
    for a in attempts:
        if a.index not in chosen or a.table_line is None or a.group is None:
            continue
        piece = [*_block(lines, a.group.line - 2, "==================================="),
                 *lines[a.table_line - 2 : a.table_line + a.period],
                 *lines[a.line - 1 : a.end_line]]  # fmt: skip
        if kept and len("\n".join(kept + piece)) > limit:
            break
        kept += piece
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{c.model}_{c.chip}"
    written = [
        folder / f"{stem}.lmem_assign.log",
        folder / f"{stem}_tpu_opt.mlir",
        folder / f"{stem}_final.mlir",
    ]
    written[0].write_text("\n".join(kept) + "\n")
    written[1].write_text(c.deployed.tpu_opt.read_text())
    written[2].write_text(c.deployed.final.read_text())
    return written


def _block(lines: list[str], start: int, end_mark: str) -> list[str]:
    """Lines from ``start`` (0-based) to the first that opens with ``end_mark``."""
    for stop in range(start, len(lines)):
        if lines[stop].startswith(end_mark) and stop > start + 1:
            return lines[start : stop + 1]
    return lines[start:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--chips", default=",".join(CHIPS))
    parser.add_argument("--work", default=str(ROOT / "out" / "tpumlir"))
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--record", help="write small recorded files for the tests here")
    parser.add_argument(
        "--record-runs",
        default=(
            "conv_c16_s128:bm1684x,conv_c32_s112:bm1688:9+11,dw_c64_s112:bm1688,"
            "conv_c64_s80:bm1688,conv_c64_s80:bm1684x2,conv_c32_s112:bm1684x:6+7"
        ),
        help="MODEL:CHIP[:I+J] runs to record (I, J: attempts; default: a failing group's)",
    )
    parser.add_argument(
        "--record-limit", type=int, default=60_000, help="bytes of trace per run recorded"
    )
    parser.add_argument(
        "--time-limit", type=float, default=10.0, help="seconds to decide each failed attempt"
    )
    args = parser.parse_args(argv)
    models = [m for m in args.models.split(",") if m]
    unknown = [m for m in models if input_shape(m) is None]
    if unknown:
        print(f"{unknown[0]}: not a model name (conv|dw|tfm)_cCHANNELS_sSIZE", file=sys.stderr)
        return 2
    chips = tuple(c for c in args.chips.split(",") if c)
    try:
        venv = find_venv(os.environ.get("TILEFIT_TPUMLIR_VENV"))
        compiled = [
            c for m in models for c in compile_model(venv, Path(args.work), m, chips, args.reuse)
        ]
    except InputError as error:
        print(error.message, file=sys.stderr)
        return 2
    rows = []
    decided: list[Decided] = []
    recorded = {}
    for spec in args.record_runs.split(","):
        model, chip, *picked = spec.split(":")
        recorded[(model, chip)] = [int(i) for i in picked[0].split("+")] if picked else []
    try:
        for c in compiled:
            row, attempts = summarise(c)
            rows.append(row)
            decided.append(decide_run(c.model, c.chip, c.deployed.trace, args.time_limit))
            if args.record and (c.model, c.chip) in recorded:
                picked = recorded[(c.model, c.chip)]
                for path in record(c, attempts, Path(args.record), args.record_limit, picked):
                    print(f"recorded {path} ({path.stat().st_size:,} B)", file=sys.stderr)
    except InputError as error:
        print(error.message, file=sys.stderr)
        return 2
    print(table(rows))
    for c in compiled:
        if c.note:
            print(f"{c.model} {c.chip}: {c.note}")
    for r in rows:
        for text in r.differing:
            print(f"{r.model} {r.chip}: {text}")
    print()
    print(decided_table(decided))
    print(decided_totals(decided))
    for d in decided:
        for name in d.rejected:
            print(f"{name}: fragmentation, but the referee rejects its placement")
    failing = any(r.differing for r in rows) or any(d.rejected for d in decided)
    return 1 if failing else 0


if __name__ == "__main__":
    raise SystemExit(main())
