"""tilefit check: referee a placement against its capture."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tilefit.cli import common
from tilefit.model.words import plural

if TYPE_CHECKING:
    from tilefit.verdicts.check import CheckResult

NAME = "check"
HELP = (
    "check a placement against every rule of its capture and list each violation "
    "(exit 0 valid, 1 invalid, 2 bad input)"
)
EXAMPLE = """example:
  tilefit place examples/0-0.json -o placement.json
  tilefit check examples/0-0.json placement.json
  tilefit solve examples/buffers.1024.csv -o solved.json
  tilefit convert examples/buffers.1024.csv -o solved.1024.csv --placement solved.json
  tilefit check examples/buffers.1024.csv solved.1024.csv --json

PLACEMENT is a placement JSON or a minimalloc CSV with an offset column. A
placement JSON whose "capture" names another capture is bad input (exit 2).
Violation kinds: missing, unknown, alignment, range, overlap, sequence, conflict.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_capture_argument(parser)
    parser.add_argument(
        "placement",
        metavar="PLACEMENT",
        help="a placement (.json) or a minimalloc CSV with an offset column",
    )
    common.add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    from tilefit.formats.load import read_placement
    from tilefit.model.errors import InputError
    from tilefit.output.jsonout import check_json
    from tilefit.verdicts.check import check

    capture = common.read_capture_arg(args)
    placement = read_placement(args.placement)
    # A placement JSON names its capture; a CSV's name is only its file's stem.
    named = placement.capture and not args.placement.lower().endswith(".csv")
    if named and placement.capture != capture.name:
        raise InputError(
            "capture",
            f"this placement is for capture {placement.capture!r}, not {capture.name!r}",
            args.placement,
        )
    result = check(capture, placement)
    if args.json:
        common.print_json(check_json(result))
    else:
        print("\n".join(check_lines(result)))
    return common.EXIT_OK if result.valid else common.EXIT_NO


def check_lines(result: CheckResult) -> list[str]:
    from tilefit.verdicts.check import KINDS

    if result.valid:
        return ["valid"]
    counts = ", ".join(f"{result.count(k)} {k}" for k in KINDS if result.count(k))
    lines = [f"invalid: {counts}"]
    lines += common.table(
        [("kind", "ids", "detail")]
        + [(v.kind, ", ".join(v.ids), v.detail) for v in result.violations]
    )
    if result.overlaps_not_listed:
        lines.append(
            f"... and {result.overlaps_not_listed} more overlapping "
            f"{plural(result.overlaps_not_listed, 'pair')} not listed"
        )
    return lines
