"""tilefit report: one self-contained HTML page with the diagnosis, maps and profile."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tilefit.cli import common

if TYPE_CHECKING:
    from tilefit.report.content import Given

NAME = "report"
HELP = (
    "write a self-contained HTML report: verdict and evidence, bounds, strategy matrix, "
    "memory maps of the production failure and of the best placement, live-storage profile"
)
EXAMPLE = """example:
  tilefit report examples/1-0.json -o report.html
  tilefit report examples/0-0.json -o report.html --time-limit 60
  tilefit report caps/m.json --placement caps/m.placement.json -o r.html  # needs an import

--placement FILE draws that placement (a toolchain's own, as tilefit import -o
writes it) beside the least one tilefit finds, on one address axis, with the
bytes saved; the referee must accept it first (else bad input, exit 2).

The page needs no network: open it in any browser, or attach it to a bug.
Exit 0 when it was written, whatever the verdict; 2 on bad input.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_capture_argument(parser)
    parser.add_argument("-o", "--output", required=True, metavar="FILE", help="the HTML file")
    parser.add_argument(
        "--placement",
        metavar="FILE",
        help="a placement to draw beside tilefit's least (a toolchain's own, from tilefit import)",
    )
    common.add_time_limit_argument(
        parser,
        "seconds for the exact search when no strategy fits (default 10); with --placement,"
        " as many again for the least placement",
    )


def run(args: argparse.Namespace) -> int:
    from tilefit.report.html import write_report

    common.check_seconds(args.time_limit, "--time-limit", allow_zero=True)
    capture = common.read_capture_arg(args)
    given = None if args.placement is None else _given(args.placement)
    content = write_report(capture, args.output, time_limit=args.time_limit, given=given)
    print(f"wrote {args.output}: verdict {content.diagnosis.verdict}")
    from tilefit.verdicts.stopped import diagnosis_stopped

    if (stop := diagnosis_stopped(content.diagnosis)) is not None:
        print(f"  {stop.text}")
    return common.EXIT_OK


def _given(path: str) -> Given:
    from pathlib import Path

    from tilefit.formats.load import read_placement
    from tilefit.report.content import Given

    return Given(read_placement(path), path, Path(path).name)
