"""tilefit export: a placement written back into a toolchain's own file, refereed first."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tilefit.cli import common
from tilefit.cli.progress import watching
from tilefit.model.errors import InputError
from tilefit.model.words import counted

if TYPE_CHECKING:
    from tilefit.toolchains.base import Exported, RuntimeCheck, Toolchain

NAME = "export"
HELP = (
    "write a placement into a model as its memory plan (TFLM: the offline plan; IREE: each "
    "pack's offsets; TPU-MLIR: each layer group's LMEM addresses), only after the referee "
    "accepts it on the model's own capture; run both models and compare their "
    "outputs (exit 0 written, 1 the runtime disagrees, nothing written, 2 bad input)"
)
EXAMPLE = """example:
  tilefit import tflm examples/tflm/streaming.tflite -o captures
  tilefit solve --minimize captures/streaming.json -o streaming.min.json
  tilefit export tflm examples/tflm/streaming.tflite streaming.min.json -o streaming.planned.tflite
  tilefit import iree model.mlir -o caps                      # needs IREE and your program
  tilefit solve --minimize caps/model.main.0.json -o p0.json  # needs the capture above
  tilefit export iree model.mlir p0.json -o model.vmfb        # needs the files above

The model keeps every other part; an offline plan it had is replaced. TFLM
places each planned tensor at the offset given and plans its scratch buffers
around them. docs/tflm.md walks through it.

IREE: one placement per pack to change (the others keep IREE's layout), the
module compiled to a .vmfb; docs/iree.md walks through it.

TPU-MLIR: the model's NAME_final.mlir (model_deploy --debug keeps it) and one
placement per layer group to change (NAME.groupK); both bmodels are made by
TPU-MLIR's codegen and run on its chip simulator (--tpumlir-venv);
docs/tpumlir.md walks through it.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tilefit.toolchains import NAMES, toolchain

    exporting = [n for n in NAMES if toolchain(n).export is not None]
    parser.add_argument("toolchain", choices=exporting, help="the toolchain whose file to write")
    parser.add_argument(
        "model", metavar="MODEL", help="the toolchain's file (a .tflite model, an IREE program)"
    )
    parser.add_argument(
        "placement",
        nargs="+",
        metavar="PLACEMENT",
        help="the placement to write (.json; IREE: one per pack to change)",
    )
    parser.add_argument("-o", "--output", metavar="FILE", required=True, help="the file to write")
    parser.add_argument(
        "--no-run",
        action="store_true",
        help="do not run the runtime on both models (only the referee checks the plan)",
    )
    add_toolchain_arguments(parser)
    common.add_json_argument(parser)


def add_toolchain_arguments(parser: argparse.ArgumentParser) -> None:
    """--flag and --inputs: what IREE's compiler is given, and what its runtime runs on."""
    parser.add_argument(
        "--flag",
        action="append",
        default=[],
        metavar="FLAG",
        help="a flag for the toolchain's compiler, passed through (IREE: "
        "--flag=--iree-stream-resource-min-offset-alignment=64; repeat it for several)",
    )
    parser.add_argument(
        "--inputs",
        metavar="ARGS.npz",
        help="the inputs both modules run on (numpy's .npz; IREE: one array per argument in "
        "order; TPU-MLIR: one per model input, by name; default: seeded random inputs)",
    )
    parser.add_argument(
        "--tpumlir-venv",
        metavar="DIR",
        help="TPU-MLIR's venv, whose tools compile and run the bmodels (default: "
        "$TILEFIT_TPUMLIR_VENV; bash .ci/tpumlir makes one)",
    )


def run(args: argparse.Namespace) -> int:
    from tilefit.formats.load import read_placement
    from tilefit.formats.save import atomic_path
    from tilefit.output.toolchain import export_json
    from tilefit.toolchains import toolchain
    from tilefit.toolchains.base import ExportOptions

    chain = toolchain(args.toolchain)
    assert chain.export is not None  # argparse offers only those that export
    placements = [read_placement(p) for p in args.placement]
    try:
        with watching(args) as watch:  # a progress line on a terminal's stderr
            watch.stage(f"{chain.tool}: writing the plan into {Path(args.model).name}")
            options = ExportOptions(
                not args.no_run, tuple(args.flag), args.inputs, watch, args.tpumlir_venv
            )
            exported = chain.export(Path(args.model), placements, options)
    except InputError as error:
        # a rule of the placement names its file; one of an option or the model stands as is
        mine = error.source or error.place.startswith("-")
        raise error if mine else error.located(args.placement[0]) from None
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
    lines = part_lines(chain, e)
    lines[:0] = [
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


def part_lines(chain: Toolchain, e: Exported) -> list[str]:
    """Each plan of the file, its top before and after (and the bank pairs each breaks)."""
    lines = []
    for p in e.parts:
        line = f"  {p.name}: {chain.plan} {p.before:,} -> {p.after:,} B"
        if p.banks is not None:
            line += (
                f"; bank pairs broken {p.banks.before} -> {p.banks.after} "
                f"(of {p.banks.pairs} {chain.tool} keeps apart where it can)"
            )
        lines.append(line)
    return lines


def runtime_lines(chain: Toolchain, r: RuntimeCheck) -> list[str]:
    """The toolchain's runtime on both plans: what it needed, and the outputs compared."""
    same = "identical, bit for bit" if r.identical else "DIFFERENT"
    vary = "" if r.varies else " (they do not vary on these inputs: a weak comparison)"
    whole = (
        f", whole arena {r.whole.before:,} -> {r.whole.after:,} B"
        if r.whole is not None and r.whole != r.plan
        else ""
    )
    return [
        f"  {chain.tool}'s runtime: {chain.plan} {r.plan.before:,} -> {r.plan.after:,} B{whole}",
        f"  outputs over {counted(r.invocations, 'invocation')}: {same}{vary}",
    ]
