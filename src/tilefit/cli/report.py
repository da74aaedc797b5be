"""tilefit report: one self-contained HTML page with the diagnosis, maps and profile."""

from __future__ import annotations

import argparse

from tilefit.cli import common

NAME = "report"
HELP = (
    "write a self-contained HTML report: verdict and evidence, bounds, strategy matrix, "
    "memory maps of the production failure and of the best placement, live-storage profile"
)
EXAMPLE = """example:
  tilefit report examples/1-0.json -o report.html
  tilefit report examples/0-0.json -o report.html --time-limit 60

The page needs no network: open it in any browser, or attach it to a bug.
Exit 0 when it was written, whatever the verdict; 2 on bad input.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_capture_argument(parser)
    parser.add_argument("-o", "--output", required=True, metavar="FILE", help="the HTML file")
    common.add_time_limit_argument(
        parser, "seconds for the exact search when no strategy fits (default 10)"
    )


def run(args: argparse.Namespace) -> int:
    from tilefit.report.html import write_report

    common.check_seconds(args.time_limit, "--time-limit", allow_zero=True)
    content = write_report(common.read_capture_arg(args), args.output, time_limit=args.time_limit)
    print(f"wrote {args.output}: verdict {content.diagnosis.verdict}")
    return common.EXIT_OK
