"""tilefit replan: import, the least memory, export, in one step, with what it saved."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tilefit.cli import common
from tilefit.cli.export import runtime_lines
from tilefit.model.errors import InputError

if TYPE_CHECKING:
    from tilefit.toolchains.base import Exported, Toolchain

NAME = "replan"
HELP = (
    "one step for a model: import its plan, find the least memory (solve --minimize), export "
    "it refereed and run on the runtime, and say what was saved and whether it is proven "
    "minimal (exit 0 written, 1 nothing better found or the runtime disagrees, 2 bad input)"
)
EXAMPLE = """example:
  tilefit replan tflm examples/tflm/streaming.tflite -o streaming.planned.tflite

The three commands it runs (tilefit import, tilefit solve --minimize, tilefit
export) stay the contract; replan writes the model only when it needs less
memory than the toolchain's own plan and the runtime agrees.
"""

READS = ("model",)
WRITES = {**common.WRITES, "placement": "--placement"}  # replan writes its --placement


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tilefit.toolchains import NAMES, toolchain

    exporting = [n for n in NAMES if toolchain(n).export is not None]
    parser.add_argument("toolchain", choices=exporting, help="the toolchain whose file to replan")
    parser.add_argument("model", metavar="MODEL", help="the toolchain's file (a .tflite model)")
    parser.add_argument("-o", "--output", metavar="FILE", required=True, help="the file to write")
    common.add_time_limit_argument(parser, "seconds for the search (default 10)")
    parser.add_argument(
        "--placement", metavar="FILE", help="also write the placement found (.json)"
    )
    common.add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    from tilefit.formats.save import atomic_path, write_placement
    from tilefit.output.toolchain import export_json
    from tilefit.toolchains import read, toolchain
    from tilefit.verdicts.solving import solve

    common.check_seconds(args.time_limit, "--time-limit")
    chain = toolchain(args.toolchain)
    assert chain.export is not None
    imported = read(args.toolchain, [args.model]).imported
    if len(imported) != 1:
        raise InputError(
            "", f"{len(imported)} plans in it, not one: use tilefit import", args.model
        )
    item = imported[0]
    found = solve(item.capture, args.time_limit, minimize=True)
    best = found.placement
    proven = found.least is not None and found.least.optimal
    if best is None:
        best = item.placement
    exported = chain.export(Path(args.model), best, True)
    better = exported.after < exported.before
    agreed = exported.runtime is None or exported.runtime.identical
    written = better and agreed
    if written:
        with atomic_path(args.output) as temp:
            temp.write_bytes(exported.data)
        if args.placement:
            write_placement(best, args.placement)
    out: dict[str, Any] = export_json(chain.name, exported, args.output if written else None)
    out["proven_minimal"] = proven
    out["lower_bound"] = None if found.least is None else found.least.lower_bound
    if args.json:
        common.print_json(out)
    else:
        print("\n".join(_lines(chain, exported, out, better)))
    return common.EXIT_OK if written else common.EXIT_NO


def _lines(chain: Toolchain, exported: Exported, out: dict[str, Any], better: bool) -> list[str]:
    tool, plan = chain.tool, chain.plan
    before, after = out["head_before"], out["head_after"]
    proof = "proven minimal" if out["proven_minimal"] else "not proven minimal"
    if out["proven_minimal"] and not better:
        lines = [f"{tool}'s {plan} is already the least: {before:,} B ({proof})"]
    elif not better:
        lines = [
            f"{tool}'s {plan}: {before:,} B; nothing lower found "
            f"(the least is at least {out['lower_bound']:,} B)"
        ]
    else:
        lines = [
            f"{tool}'s {plan}: {before:,} B -> {after:,} B, {out['saved']:,} B "
            f"({out['saved_percent']:.1f}%) less, {proof}"
        ]
    if exported.runtime is not None:
        lines += runtime_lines(chain, exported.runtime)
    if out["output"]:
        lines.append(f"  wrote {out['output']}")
    elif better:
        lines.append("  nothing written: the runtime's outputs differ")
    return lines
