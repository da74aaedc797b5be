"""tilefit import: another toolchain's memory plan as captures, its placement refereed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tilefit.cli import common
from tilefit.cli.progress import watching
from tilefit.model.errors import InputError
from tilefit.model.words import counted

if TYPE_CHECKING:
    from tilefit.toolchains.base import Imported, Toolchain

NAME = "import"
FOLDERS = ("output",)  # -o DIR, made with its parents
HELP = (
    "import a compiler's or runtime's memory plan (XLA's buffer assignment, TFLM's arena, "
    "ExecuTorch's arenas, IREE's transient slabs, TPU-MLIR's LMEM attempts) as "
    "captures, with its own placement refereed (exit 0 every placement valid, 1 one is not, "
    "2 bad input)"
)
EXAMPLE = """example:
  tilefit import tflm examples/tflm/streaming.tflite -o captures
  tilefit diagnose captures/streaming.json
  XLA_FLAGS=--xla_dump_to=dump python train.py     # needs your JAX/TensorFlow/PyTorch-XLA program
  tilefit import xla dump -o captures              # needs the dump above
  tilefit import xla dump --capacity 100000000 -o at100MB   # needs the dump: fits in 100 MB?
  tilefit import executorch examples/executorch/kws_dscnn.default.executorch.json
  tilefit import iree model.mlir -o captures       # needs IREE's compiler and your program
  tilefit import iree model.mlir --flag=--iree-hal-target-device=local   # needs the same
  tilefit import tpumlir examples/tpumlir/dw_c64_s112_bm1688_final.mlir   # failed attempts: exit 1

Each plan (an XLA module's preallocated temp allocation, a TFLM model's arena
head) becomes one capture, named after the module or model, and the
toolchain's own offsets become NAME.placement.json beside it (tilefit check
referees it again). docs/xla.md and docs/tflm.md say which values become
which requests, and why; docs/executorch.md how ExecuTorch's planner
writes NAME.executorch.json; docs/iree.md which IREE packs are imported;
docs/tpumlir.md how TPU-MLIR's allocator trace is made.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tilefit.toolchains import NAMES, toolchain

    parser.add_argument(
        "toolchain",
        choices=NAMES,
        help="; ".join(f"{name}: {toolchain(name).summary}" for name in NAMES),
    )
    parser.add_argument(
        "dumps",
        nargs="+",
        metavar="INPUT",
        help="the toolchain's files: dump folders (searched recursively) or files",
    )
    parser.add_argument(
        "-o", "--output", metavar="DIR", help="write each capture and its placement into DIR"
    )
    parser.add_argument(
        "--capacity",
        type=int,
        default=None,
        metavar="BYTES",
        help="the memory of each capture (default: the toolchain's own heap)",
    )
    parser.add_argument(
        "--alignment",
        type=int,
        default=None,
        metavar="BYTES",
        help="the heap's offset alignment (default: the backend's, e.g. 64 on XLA's CPU)",
    )
    parser.add_argument(
        "--flag",
        action="append",
        default=[],
        metavar="FLAG",
        help="a flag for the toolchain's compiler, passed through (IREE: "
        "--flag=--iree-hal-target-device=...; repeat it for several)",
    )
    common.add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    from tilefit.output.toolchain import import_json
    from tilefit.toolchains import toolchain
    from tilefit.toolchains.base import ImportOptions
    from tilefit.verdicts.imported import review

    common.check_count(args.capacity, "--capacity", 1)
    common.check_count(args.alignment, "--alignment", 1)
    if args.output == "-":  # several files: a folder, never standard output
        raise InputError("-o", "import writes a folder of captures and placements: name one")
    chain = toolchain(args.toolchain)
    options = ImportOptions(
        capacity=args.capacity, alignment=args.alignment, flags=tuple(args.flag)
    )
    with watching(args) as watch:  # a progress line on a terminal's stderr
        watch.stage(f"{chain.tool}: reading {_named(args.dumps)}")
        reading = chain.read(args.dumps, options)
        watch.stage(f"where {counted(len(reading.imported), 'plan')} stand: bounds, referee")
        rows = [
            import_json(item, review(item.capture, item.placement)) for item in reading.imported
        ]
    for skipped in reading.skipped:
        print(f"tilefit import: skipped {skipped.source}: {skipped.reason}", file=sys.stderr)
    if not reading.imported:
        raise InputError(args.dumps[0], f"nothing to import: no {chain.tool} plan in these inputs")
    if args.output:
        _write(reading.imported, rows, Path(args.output))
    if args.json:
        left = [{"source": s.source, "reason": s.reason} for s in reading.skipped]
        common.print_json({"toolchain": args.toolchain, "imports": rows, "skipped": left})
    else:
        for row in rows:
            print("\n".join(_lines(chain, row)))
        if not args.output:
            print(
                f"(-o DIR writes {counted(2 * len(rows), 'file')}: each capture and its placement)"
            )
    valid = all(row["placement_valid"] for row in rows)
    return common.EXIT_OK if valid else common.EXIT_NO


def _named(paths: list[str]) -> str:
    """The inputs, for a progress line: the one file's name, or how many."""
    return Path(paths[0]).name if len(paths) == 1 else counted(len(paths), "input")


def _write(imported: list[Imported], rows: list[dict[str, Any]], folder: Path) -> None:
    from tilefit.formats.save import capture_text, placement_text, write_text_atomic

    seen: dict[str, str] = {}
    for item in imported:
        name = item.capture.name
        if name in seen:
            raise InputError(
                "--output",
                f"two modules are named {name} ({seen[name]} and {item.source}): "
                "import them into different folders",
            )
        seen[name] = item.source
    folder.mkdir(parents=True, exist_ok=True)
    for item, row in zip(imported, rows, strict=True):
        capture_file = folder / f"{item.capture.name}.json"
        placement_file = folder / f"{item.capture.name}.placement.json"
        write_text_atomic(capture_file, capture_text(item.capture))
        write_text_atomic(placement_file, placement_text(item.placement))
        row["capture_file"], row["placement_file"] = str(capture_file), str(placement_file)


def _lines(chain: Toolchain, row: dict[str, Any]) -> list[str]:
    lines = [
        f"{row['name']}: {row['source']}",
        f"  {counted(row['values'], 'value')} as {counted(row['requests'], 'request')} over "
        f"{counted(row['steps'], 'step')}; "
        f"{chain.plan} {row['heap']:,} B, live lower bound {row['lower_bound']:,} B"
        + (
            f", aligned lower bound {row['aligned_top']:,} B"
            if row["aligned_top"] > row["lower_bound"]
            else ""
        ),
        f"  {row['heap_standing']['text']}" + _searches_below(row["heap_standing"]),
    ]
    if row["memory"] != row["heap"]:  # the toolchain's own answer first, as diagnose's
        over = row["heap"] - row["memory"]
        own = "fits" if over <= 0 else f"does not ({over:,} B over)"
        lines.append(
            f"  asks: does it fit in {row['memory']:,} B? {chain.tool}'s own {chain.plan} "
            f"{own}; tilefit diagnose answers for tilefit's plan"
        )
    if row["placement_valid"]:
        lines.append(f"  {chain.tool}'s placement passes the referee")
    else:
        count = len(row["violations"])
        lines.append(
            f"  {chain.tool}'s placement FAILS the referee: {counted(count, 'violation')}, "
            "for example:"
        )
        lines += [f"    {v['kind']}: {v['detail']}" for v in row["violations"][:5]]
    lines += [f"  note: {note}" for note in row["notes"]]
    if row["capture_file"]:
        lines.append(f"  wrote {row['capture_file']} and {row['placement_file']}")
    return lines


def _searches_below(standing: dict[str, Any]) -> str:
    """Where a lower plan may exist: not below an optimal heap, nor an incomplete one."""
    if standing["optimal"] or standing.get("placed") is not None:
        return ""
    return " (tilefit solve --minimize searches below)"
