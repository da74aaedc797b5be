"""tilefit replan: import, the least memory, export, in one step, with what it saved."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tilefit.cli import common
from tilefit.cli.export import add_toolchain_arguments, part_lines, runtime_lines
from tilefit.cli.progress import watching
from tilefit.model.errors import InputError

if TYPE_CHECKING:
    from tilefit.toolchains.base import Exported, ExportOptions, Imported, Toolchain
    from tilefit.verdicts.stopped import Stopped

NAME = "replan"
HELP = (
    "one step for a model: import its plan, find the least memory (solve --minimize), export "
    "it refereed and run on the runtime, and say what was saved and whether it is proven "
    "minimal (exit 0 written, 1 nothing better found or the runtime disagrees, 2 bad input)"
)
EXAMPLE = """example:
  tilefit replan tflm examples/tflm/streaming.tflite -o streaming.planned.tflite
  tilefit replan iree model.mlir -o model.vmfb   # needs IREE's compiler and your program
  tilefit replan tpumlir NAME_bm1684x_f32_final.mlir -o NAME.bmodel  # needs TPU-MLIR's venv

The three commands it runs (tilefit import, tilefit solve --minimize, tilefit
export) stay the contract; replan writes the model only when it needs less
memory than the toolchain's own plan and the runtime agrees. A program with
several plans (IREE's packs, TPU-MLIR's layer groups) has each searched, for
--time-limit seconds each; a TPU-MLIR group first for a plan keeping the bank
pairs TPU-MLIR keeps apart, then for any.
"""

READS = ("model",)
WRITES = {**common.WRITES, "placement": "--placement"}  # replan writes its --placement


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tilefit.toolchains import NAMES, toolchain

    exporting = [n for n in NAMES if toolchain(n).export is not None]
    parser.add_argument("toolchain", choices=exporting, help="the toolchain whose file to replan")
    parser.add_argument(
        "model", metavar="MODEL", help="the toolchain's file (a .tflite model, an IREE program)"
    )
    parser.add_argument("-o", "--output", metavar="FILE", required=True, help="the file to write")
    common.add_time_limit_argument(parser, "seconds for the search of each plan (default 10)")
    parser.add_argument(
        "--placement", metavar="FILE", help="also write the placement found (.json; one plan)"
    )
    add_toolchain_arguments(parser)
    common.add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    from tilefit.formats.save import atomic_path, write_placement
    from tilefit.model.placement import Placement
    from tilefit.output.stopped import stopped_json
    from tilefit.output.toolchain import export_json
    from tilefit.toolchains import toolchain
    from tilefit.toolchains.base import ExportOptions
    from tilefit.toolchains.replan import replan, replan_preferring
    from tilefit.verdicts.stopped import Stopped, stopped

    common.check_seconds(args.time_limit, "--time-limit")
    chain = toolchain(args.toolchain)
    assert chain.export is not None
    flags = tuple(args.flag)
    best: list[Placement] = []
    proven, lower = True, 0
    known = True  # every plan's least has a lower bound
    stops: list[Stopped] = []  # the plans whose search the time limit stopped short
    with watching(args) as watch:  # a progress line on a terminal's stderr
        watch.stage(f"{chain.tool}: reading {Path(args.model).name}")
        options = ExportOptions(True, flags, args.inputs, watch, args.tpumlir_venv)
        imported = _plans(chain, args, options)
        for item in imported:
            if item.preferred is None:
                found = replan(item.capture, item.placement, args.time_limit, watch=watch)
            else:  # a plan keeping the toolchain's preferences first (TPU-MLIR's banks)
                found = replan_preferring(
                    item.preferred, item.capture, item.placement, args.time_limit, watch
                )
            best.append(item.placement if found.placement is None else found.placement)
            proven = proven and found.proven
            searched = found.answer  # None: the bounds proved the toolchain's plan the least
            if searched is not None and (stop := stopped(searched, minimize=True)) is not None:
                nothing = searched.placement is None  # not even a plan as low as the toolchain's
                stops.append(
                    Stopped(f"a plan below {chain.tool}'s {chain.plan}") if nothing else stop
                )
            known = known and found.lower_bound is not None
            lower += found.lower_bound or 0
        if chain.reconcile is not None:  # plans tied to each other (TPU-MLIR's groups)
            kept = chain.reconcile(Path(args.model), best)
            proven = proven and kept == best
            best = kept
        watch.stage(f"{chain.tool}: writing the plan into {Path(args.model).name}")
        exported = chain.export(Path(args.model), best, options)
    better = exported.after < exported.before
    agreed = exported.runtime is None or exported.runtime.identical
    written = better and agreed
    if written:
        with atomic_path(args.output) as temp:
            temp.write_bytes(exported.data)
        if args.placement:
            write_placement(best[0], args.placement)
    out: dict[str, Any] = export_json(chain.name, exported, args.output if written else None)
    out["proven_minimal"] = proven
    out["lower_bound"] = lower if known else None
    stop = stops[0] if len(stops) == len(imported) == 1 else _several(stops, len(imported))
    out["stopped"] = stopped_json(stop)
    if args.json:
        common.print_json(out)
    else:
        lines = _lines(chain, exported, out, better)
        print("\n".join(lines[:1] + ([] if stop is None else [f"  {stop.text}"]) + lines[1:]))
    return common.EXIT_OK if written else common.EXIT_NO


def _plans(chain: Toolchain, args: argparse.Namespace, options: ExportOptions) -> list[Imported]:
    """The model's plans, as export writes them; what export needs checked first."""
    from tilefit.toolchains import read
    from tilefit.toolchains.base import ImportOptions

    if chain.ready is not None:  # what export needs (TPU-MLIR's venv), before searching
        chain.ready(options)
    if chain.plans is not None:  # the plans export writes, where not import's
        imported = chain.plans(Path(args.model)).imported
    else:
        imported = read(chain.name, [args.model], ImportOptions(flags=options.flags)).imported
    if not imported:
        raise InputError("", f"no {chain.tool} plan in it: nothing to replan", args.model)
    if args.placement and len(imported) != 1:
        raise InputError(
            "--placement", f"{len(imported)} plans in it: use tilefit import and solve for each"
        )
    return imported


def _several(stops: list[Stopped], plans: int) -> Stopped | None:
    """The stops of several plans' searches, as one (None: none stopped short)."""
    from tilefit.verdicts.stopped import Stopped

    if not stops:
        return None
    which = "every plan" if len(stops) == plans else f"{len(stops)} of the {plans} plans"
    return Stopped(f"proving {which} the least (each searched alone)")


def _lines(chain: Toolchain, exported: Exported, out: dict[str, Any], better: bool) -> list[str]:
    tool, plan = chain.tool, chain.plan
    before, after = out["head_before"], out["head_after"]
    proof = "proven minimal" if out["proven_minimal"] else "not proven minimal"
    if out["proven_minimal"] and not better:
        lines = [f"{tool}'s {plan} is already the least: {before:,} B ({proof})"]
    elif not better:
        low = out["lower_bound"]  # None: a search stopped before it knew one
        known = "" if low is None else f" (the least is at least {low:,} B)"
        lines = [f"{tool}'s {plan}: {before:,} B; nothing lower found{known}"]
    else:
        lines = [
            f"{tool}'s {plan}: {before:,} B -> {after:,} B, {out['saved']:,} B "
            f"({out['saved_percent']:.1f}%) less, {proof}"
        ]
    lines += part_lines(chain, exported)
    if exported.runtime is not None:
        lines += runtime_lines(chain, exported.runtime)
    if out["output"]:
        lines.append(f"  wrote {out['output']}")
    elif better:
        lines.append("  nothing written: the runtime's outputs differ")
    return lines
