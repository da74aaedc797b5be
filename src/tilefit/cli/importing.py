"""tilefit import: another toolchain's allocation plan as captures, its placement refereed."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tilefit.cli import common
from tilefit.model.errors import InputError
from tilefit.model.words import counted

if TYPE_CHECKING:
    from tilefit.formats.foreign import Imported

NAME = "import"
HELP = (
    "import a compiler's allocation plan (XLA's buffer assignment) as captures, with its "
    "own placement refereed (exit 0 every placement valid, 1 one is not, 2 bad input)"
)
EXAMPLE = """example:
  XLA_FLAGS=--xla_dump_to=dump python train.py     # any JAX/TensorFlow/PyTorch-XLA program
  tilefit import xla dump -o captures
  tilefit diagnose captures/module_0012.jit_train_step.json
  tilefit import xla dump --capacity 100000000 -o at100MB   # would it fit in 100 MB?

Each module's preallocated temp allocation (the heap XLA's heap simulator packs)
becomes one capture, named after the module, and XLA's own offsets become
NAME.placement.json beside it (tilefit check referees it again). docs/xla.md
says which values become which requests, and why.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tilefit.formats.foreign import TOOLCHAINS

    parser.add_argument(
        "toolchain",
        choices=sorted(TOOLCHAINS),
        help="; ".join(f"{t.name}: {t.summary}" for t in TOOLCHAINS.values()),
    )
    parser.add_argument(
        "dumps", nargs="+", metavar="DUMP", help="dump folders (searched recursively) or files"
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
    common.add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    from tilefit.formats.foreign import TOOLCHAINS, ImportOptions

    common.check_count(args.capacity, "--capacity", 1)
    common.check_count(args.alignment, "--alignment", 1)
    options = ImportOptions(capacity=args.capacity, alignment=args.alignment)
    imported = TOOLCHAINS[args.toolchain].read(args.dumps, options)
    if not imported:
        raise InputError(
            args.dumps[0], "no preallocated temp allocation in these dumps: nothing to import"
        )
    rows = [_row(item) for item in imported]
    if args.output:
        _write(imported, rows, Path(args.output))
    if args.json:
        common.print_json({"toolchain": args.toolchain, "imports": rows})
    else:
        for row in rows:
            print("\n".join(_lines(row)))
    valid = all(row["placement_valid"] for row in rows)
    return common.EXIT_OK if valid else common.EXIT_NO


def _row(item: Imported) -> dict[str, Any]:
    from tilefit.formats.foreign import at_own_heap
    from tilefit.output.jsonout import heap_json, violation_json
    from tilefit.verdicts.bounds import bound
    from tilefit.verdicts.check import check
    from tilefit.verdicts.heap import heap_standing

    capture = item.capture
    assert capture.origin is not None
    verdict = check(at_own_heap(capture), item.placement)
    lower = bound(capture).lower_bound
    standing = heap_standing(capture, lower, None)
    return {
        "name": capture.name,
        "source": capture.origin.source,
        "file": item.source,
        "values": item.values,
        "requests": len(capture.requests),
        "steps": capture.horizon,
        "heap": capture.origin.heap,
        "memory": capture.memory.size,
        "lower_bound": lower,
        "placement_valid": verdict.valid,
        "violations": [violation_json(v) for v in verdict.violations],
        "heap_standing": heap_json(standing),
        "capture_file": None,
        "placement_file": None,
    }


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


def _lines(row: dict[str, Any]) -> list[str]:
    lines = [
        f"{row['name']}: {row['source']}",
        f"  {counted(row['values'], 'value')} as {counted(row['requests'], 'request')} over "
        f"{counted(row['steps'], 'step')}; "
        f"heap {row['heap']:,} B, live lower bound {row['lower_bound']:,} B",
        f"  {row['heap_standing']['text']}"
        + ("" if row["heap_standing"]["optimal"] else " (tilefit solve --minimize searches below)"),
    ]
    if row["memory"] != row["heap"]:
        lines.append(f"  asks: does it fit in {row['memory']:,} B? (tilefit diagnose)")
    if row["placement_valid"]:
        lines.append("  XLA's placement passes the referee")
    else:
        count = len(row["violations"])
        lines.append(
            f"  XLA's placement FAILS the referee: {counted(count, 'violation')}, for example:"
        )
        lines += [f"    {v['kind']}: {v['detail']}" for v in row["violations"][:5]]
    if row["capture_file"]:
        lines.append(f"  wrote {row['capture_file']} and {row['placement_file']}")
    return lines
