"""tilefit place: production strategies first, further ones only where they fail."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tilefit.cli import common
from tilefit.cli.replay import strategies_arg
from tilefit.verdicts.retry import DEFAULT_FALLBACKS, PlaceResult

if TYPE_CHECKING:
    from tilefit.model.capture import Capture

NAME = "place"
HELP = (
    "place a tile for production: its production strategies first and, only when all "
    "fail, further strategies (exit 0 when placed, 1 when not)"
)
EXAMPLE = f"""example:
  tilefit place examples/0-0.json -o placement.json
  tilefit place examples/0-0.json --fallback long-lived/first-fit,size/best-fit --json

A tile that its production strategies fit keeps exactly that placement; the
fallbacks (default {",".join(DEFAULT_FALLBACKS)}) run only when every
production attempt fails, each from an empty memory.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_capture_argument(parser)
    parser.add_argument(
        "--fallback",
        metavar="ORDER/FIT[,...]",
        default=",".join(DEFAULT_FALLBACKS),
        help="the further ORDER/FIT strategies, in order (default %(default)s)",
    )
    parser.add_argument(
        "--no-fallback", action="store_true", help="run the production strategies only"
    )
    parser.add_argument("-o", "--output", metavar="PLACEMENT", help="write the placement")
    common.add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    from tilefit.output.jsonout import place_json
    from tilefit.verdicts.retry import place

    fallbacks = () if args.no_fallback else strategies_arg(args.fallback, "--fallback") or ()
    capture = common.read_capture_arg(args)
    result = place(capture, fallbacks)
    common.write_found(result.placement, args.output)
    if args.json:
        common.print_json(place_json(result))
    else:
        print("\n".join(place_lines(capture, result, args.output)))
    return common.EXIT_OK if result.fits else common.EXIT_NO


def place_lines(capture: Capture, result: PlaceResult, output: str | None) -> list[str]:
    failed = [a for a in result.attempts if not a.fits]
    tried = ", ".join(f"{a.strategy.name} (on {a.failure.unit.id})" for a in failed if a.failure)
    if not result.fits:
        lines = [f"{capture.name}: no strategy fits; tried {tried}"]
        return lines + ([f"  nothing written to {output}"] if output else [])
    how = "a further strategy" if result.fallback else "production"
    lines = [f"{capture.name}: fits with {result.strategy} ({how})"]
    if failed:
        lines.append(f"  failed first: {tried}")
    lines.append(f"  placement written to {output}" if output else "  -o FILE writes it")
    return lines
