"""tilefit experiment: every order with every fit, one row each."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tilefit.cli import common
from tilefit.model.words import counted

if TYPE_CHECKING:
    from tilefit.model.capture import Capture
    from tilefit.verdicts.experiment import ExperimentRow

NAME = "experiment"
HELP = (
    "run the ordering experiments: all 8 orders x 2 fits on a capture, one row each "
    "(exit 0 when any fits, 1 when none does)"
)
EXAMPLE = """example:
  tilefit experiment examples/0-0.json
  tilefit experiment examples/0-0.json --split-sequences --no-times
  tilefit experiment examples/1-0.json --json         # none fits: exit 1

orders: alignment, lifetime, size, weighted:0.5, weighted:1, weighted:2,
long-lived, resident-first; fits: first-fit, best-fit. The peak address of a
failing strategy is that of what it placed before failing.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_capture_argument(parser)
    parser.add_argument(
        "--split-sequences",
        action="store_true",
        help="also rerun the matrix with every sequence split into independently "
        "placeable members (lifetimes kept, conflict edges given to every member)",
    )
    parser.add_argument(
        "--no-times", action="store_true", help="leave out the time column (stable output)"
    )
    common.add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    from tilefit.output.jsonout import experiment_json
    from tilefit.verdicts.experiment import experiment

    capture = common.read_capture_arg(args)
    rows = experiment(capture, split_sequences=args.split_sequences)
    if args.json:
        common.print_json(experiment_json(rows))
    else:
        print("\n".join(experiment_lines(capture, rows, times=not args.no_times)))
    return common.EXIT_OK if any(r.fits for r in rows) else common.EXIT_NO


def experiment_lines(
    capture: Capture, rows: Sequence[ExperimentRow], times: bool = True
) -> list[str]:
    lines = [
        f"{capture.name}: {counted(len(capture.requests), 'request')}, "
        f"{capture.available} B available"
    ]
    for split in (False, True):
        part = [r for r in rows if r.split_sequences == split]
        if not part:
            continue
        lines.append("")
        if split:
            lines.append("sequences split into independently placeable members:")
        lines += _table(part, times)
        fitting = [r.strategy for r in part if r.fits]
        lines.append(
            f"{len(fitting)} of {len(part)} fit" + (f": {', '.join(fitting)}" if fitting else "")
        )
    return lines


def _table(rows: Sequence[ExperimentRow], times: bool) -> list[str]:
    head = ("strategy", "result", "peak address", *(("time",) if times else ()))
    body = [
        (
            r.strategy,
            "fits" if r.fits else f"fails on {r.failed_id}",
            f"{r.peak_address}",
            *((f"{r.seconds * 1000:.1f} ms",) if times else ()),
        )
        for r in rows
    ]
    return common.table([head, *body])
