"""tilefit convert: between a JSON capture and minimalloc CSV."""

from __future__ import annotations

import argparse
from pathlib import Path

from tilefit.cli import common
from tilefit.model.errors import InputError

NAME = "convert"
HELP = "write a capture as JSON or minimalloc CSV (by the output's extension)"
EXAMPLE = """example:
  tilefit convert examples/buffers.1024.csv -o buffers.json
  tilefit solve buffers.json -o buffers.placement.json
  tilefit convert buffers.json -o solved.1024.csv --placement buffers.placement.json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_capture_argument(parser)
    parser.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="output file: .json or .csv"
    )
    parser.add_argument(
        "--placement",
        metavar="PLACEMENT",
        help="with a .csv output: a placement whose offsets fill the offset column",
    )


def run(args: argparse.Namespace) -> int:
    from tilefit.formats.load import read_placement
    from tilefit.formats.minimalloc import capture_to_csv
    from tilefit.formats.save import capture_text, write_text_atomic

    capture = common.read_capture_arg(args)
    out = Path(args.output)
    if out.suffix.lower() == ".csv":
        placement = read_placement(args.placement) if args.placement else None
        if placement is not None:
            missing = [r.id for r in capture.requests if r.id not in placement.offsets]
            if missing:
                raise InputError("--placement", f"has no offset for request {missing[0]!r}")
        text = capture_to_csv(capture, placement)
    elif out.suffix.lower() == ".json":
        if args.placement:
            raise InputError("--placement", "applies only to a .csv output")
        text = capture_text(capture)
    else:
        raise InputError("--output", "must end in .json or .csv")
    write_text_atomic(out, text)
    return common.EXIT_OK
