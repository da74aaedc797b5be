"""tilefit export: a placement written back into a toolchain's own file, refereed first."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tilefit.cli import common
from tilefit.model.errors import InputError

if TYPE_CHECKING:
    from tilefit.toolchains.base import Exported, RuntimeCheck, Toolchain

NAME = "export"
HELP = (
    "write a placement into a model as its memory plan (TFLM: the offline plan), only after "
    "the referee accepts it on the model's own capture; run both models and compare their "
    "outputs (exit 0 written, 1 the runtime disagrees, nothing written, 2 bad input)"
)
EXAMPLE = """example:
  tilefit import tflm examples/tflm/streaming.tflite -o captures
  tilefit solve --minimize captures/streaming.json -o streaming.min.json
  tilefit export tflm examples/tflm/streaming.tflite streaming.min.json -o streaming.planned.tflite

The model keeps every other part; an offline plan it had is replaced. TFLM
places each planned tensor at the offset given and plans its scratch buffers
around them. docs/tflm.md walks through it.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tilefit.toolchains import NAMES, toolchain

    exporting = [n for n in NAMES if toolchain(n).export is not None]
    parser.add_argument("toolchain", choices=exporting, help="the toolchain whose file to write")
    parser.add_argument("model", metavar="MODEL", help="the toolchain's file (a .tflite model)")
    parser.add_argument("placement", metavar="PLACEMENT", help="the placement to write (.json)")
    parser.add_argument("-o", "--output", metavar="FILE", required=True, help="the file to write")
    parser.add_argument(
        "--no-run",
        action="store_true",
        help="do not run the runtime on both models (only the referee checks the plan)",
    )
    common.add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    from tilefit.formats.load import read_placement
    from tilefit.formats.save import atomic_path
    from tilefit.output.toolchain import export_json
    from tilefit.toolchains import toolchain

    chain = toolchain(args.toolchain)
    assert chain.export is not None  # argparse offers only those that export
    placement = read_placement(args.placement)
    try:
        exported = chain.export(Path(args.model), placement, not args.no_run)
    except InputError as error:
        raise error if error.source else error.located(args.placement) from None
    agreed = exported.runtime is None or exported.runtime.identical
    if agreed:
        with atomic_path(args.output) as temp:
            temp.write_bytes(exported.data)
    out = export_json(chain.name, exported, args.output if agreed else None)
    if args.json:
        common.print_json(out)
    else:
        print("\n".join(_lines(chain, exported, out)))
    return common.EXIT_OK if agreed else common.EXIT_NO


def _lines(chain: Toolchain, e: Exported, out: dict[str, Any]) -> list[str]:
    lines = [
        f"{chain.tool}'s own plan: {chain.plan} {e.before:,} B; this placement: {e.after:,} B "
        f"({out['saved']:,} B, {out['saved_percent']:.1f}% less)"
        if out["saved"] >= 0
        else f"{chain.tool}'s own plan: {chain.plan} {e.before:,} B; this placement: "
        f"{e.after:,} B ({-out['saved']:,} B more)",
        f"  the referee accepts all {e.requests} offsets on the model's own capture",
    ]
    if e.runtime is not None:
        lines += runtime_lines(chain, e.runtime)
    if out["output"]:
        lines.append(f"  wrote {out['output']}")
    else:
        lines.append("  nothing written: the runtime's outputs differ")
    return lines


def runtime_lines(chain: Toolchain, r: RuntimeCheck) -> list[str]:
    """The toolchain's runtime on both plans: what it needed, and the outputs compared."""
    same = "identical, bit for bit" if r.identical else "DIFFERENT"
    vary = "" if r.varies else " (they do not vary on these inputs: a weak comparison)"
    return [
        f"  {chain.tool}'s runtime: {chain.plan} {r.head_before:,} -> {r.head_after:,} B, "
        f"whole arena {r.total_before:,} -> {r.total_after:,} B",
        f"  outputs over {r.invocations} invocations: {same}{vary}",
    ]
