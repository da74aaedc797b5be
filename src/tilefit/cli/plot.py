"""tilefit plot: the memory map of a placement or of a strategy's attempt."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from tilefit.cli import common
from tilefit.model.words import counted, plural

if TYPE_CHECKING:
    from tilefit.engine.attempt import Attempt
    from tilefit.model.capture import Capture

NAME = "plot"
HELP = (
    "memory map (steps across, addresses up) of a placement or a strategy's attempt, "
    "by default the production replay's last attempt; PNG or SVG"
)
EXAMPLE = """example:
  tilefit plot examples/0-0.json -o failure.png      # the production failure
  tilefit plot examples/0-0.json --strategy long-lived/first-fit -o fix.svg
  tilefit place examples/0-0.json -o fix.json
  tilefit plot examples/0-0.json --placement fix.json --profile -o fix.png
  tilefit plot examples/0-0.json --placement fix.json --beside -o beside.png

A failed attempt shows the failed unit's lifetime band, the holes it met
with their sizes, and the unit itself beside the map at its true size.
Every overloaded window (steps where the live requests need more than they
may use) is hatched, with the bytes over. The title line ends with the
verdict of `tilefit diagnose`. --profile adds the live storage per step
below the map (the same steps). --beside draws the placement given (a
toolchain's own, as tilefit import -o writes it) beside the least one tilefit
finds, on one address axis, each top across both; the referee must accept it.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_capture_argument(parser)
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--placement", metavar="FILE", help="a placement file to draw")
    source.add_argument(
        "--strategy",
        metavar="ORDER/FIT",
        help="draw this strategy's attempt, e.g. long-lived/first-fit",
    )
    parser.add_argument(
        "--profile", action="store_true", help="add the live-storage profile below the map"
    )
    parser.add_argument(
        "--beside",
        action="store_true",
        help="with --placement: tilefit's least placement beside it, on one address axis",
    )
    parser.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="FILE.png or FILE.svg"
    )
    common.add_time_limit_argument(
        parser, "seconds for the verdict's exact search when no strategy fits (default 10)"
    )


def run(args: argparse.Namespace) -> int:
    from tilefit.model.errors import InputError
    from tilefit.plot.caption import verdict_caption
    from tilefit.plot.figure import save_figure, tile_figure
    from tilefit.plot.layout import attempt_map, placement_map
    from tilefit.plot.series import profile_series
    from tilefit.verdicts.diagnose import diagnose
    from tilefit.verdicts.stopped import diagnosis_stopped

    capture = common.read_capture_arg(args)
    if not args.output.lower().endswith((".png", ".svg")):
        raise InputError("-o", "the output must end in .png or .svg")
    common.check_seconds(args.time_limit, "--time-limit", allow_zero=True)
    if args.beside:
        return _beside(capture, args)
    if args.placement is not None:
        from tilefit.formats.load import read_placement

        placement = read_placement(args.placement)
        missing = sum(1 for r in capture.requests if r.id not in placement.offsets)
        if missing:
            print(
                f"tilefit: note: {counted(missing, 'request')} "
                f"{plural(missing, 'has', 'have')} no offset "
                f"and {plural(missing, 'is', 'are')} not drawn",
                file=sys.stderr,
            )
        title = f"{capture.name}: {args.placement}"
        diagnosis = diagnose(capture, time_limit=args.time_limit)
        layout = placement_map(capture, placement.offsets, title, diagnosis.bound.windows)
    else:
        attempt = _attempt(capture, args.strategy)  # a bad --strategy is refused first
        diagnosis = diagnose(capture, time_limit=args.time_limit)
        if attempt is None:
            attempt = diagnosis.production[-1]  # the production failure, or what fits
        layout = attempt_map(capture, attempt, windows=diagnosis.bound.windows)
    series = profile_series(capture, diagnosis.bound) if args.profile else None
    save_figure(tile_figure(layout, series, verdict_caption(diagnosis)), args.output)
    print(f"wrote {args.output}: {layout.title} (verdict {diagnosis.verdict})")
    if (stop := diagnosis_stopped(diagnosis)) is not None:
        print(f"  the verdict {stop.text}")
    return common.EXIT_OK


def _beside(capture: Capture, args: argparse.Namespace) -> int:
    from pathlib import Path

    from tilefit.formats.load import read_placement
    from tilefit.model.errors import InputError
    from tilefit.plot.beside import beside_figure
    from tilefit.plot.compare import comparison
    from tilefit.plot.figure import save_figure

    if args.placement is None or args.profile:
        raise InputError("--beside", "draws a --placement FILE beside tilefit's least, alone")
    name = Path(args.placement).name
    placement = read_placement(args.placement)
    c = comparison(capture, placement, args.placement, name, args.time_limit)
    save_figure(beside_figure(c), args.output)
    saved = f"{c.saved:,} B saved" if c.saved else "not lower"
    print(f"wrote {args.output}: {name} beside tilefit's least ({saved})")
    return common.EXIT_OK


def _attempt(capture: Capture, strategy: str | None) -> Attempt | None:
    from tilefit.engine.attempt import run_strategy
    from tilefit.engine.strategy import parse_strategy
    from tilefit.model.errors import InputError

    if strategy is None:
        return None
    try:
        return run_strategy(capture, parse_strategy(strategy))
    except ValueError as error:
        raise InputError("--strategy", str(error)) from None
