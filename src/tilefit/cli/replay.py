"""tilefit replay: the production allocator's attempts, where and why they fail."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tilefit.cli import common
from tilefit.model.errors import InputError
from tilefit.model.words import counted, lifetime_text

if TYPE_CHECKING:
    from tilefit.engine.attempt import Attempt, Failure
    from tilefit.engine.strategy import Strategy
    from tilefit.model.capture import Capture
    from tilefit.verdicts.replay import ReplayResult

NAME = "replay"
HELP = (
    "replay the production allocator's attempts on a capture: the unit each fails on "
    "and the holes left over its lifetime (exit 0 when an attempt fits, 1 when all fail)"
)
EXAMPLE = """example:
  tilefit replay examples/0-0.json                    # both attempts fail: exit 1
  tilefit replay examples/0-0.json --strategy long-lived/first-fit -o placement.json
  tilefit replay examples/1-0-baseline.json --json

The attempts are the capture's "production" strategies (default
lifetime/first-fit, then alignment/first-fit), each from an empty memory,
until one fits. With "observed" in the capture, the replay says whether its
final failure names the same id.
"""

HOLES_SHOWN = 10  # --json lists them all


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_capture_argument(parser)
    parser.add_argument(
        "--strategy",
        metavar="ORDER/FIT[,...]",
        help="run these ORDER/FIT strategies instead of the capture's production list",
    )
    parser.add_argument(
        "-o", "--output", metavar="PLACEMENT", help="write the placement when an attempt fits"
    )
    common.add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    from tilefit.output.jsonout import replay_json
    from tilefit.verdicts.replay import replay

    strategies = strategies_arg(args.strategy, "--strategy")
    capture = common.read_capture_arg(args)
    result = replay(capture, strategies)
    common.write_found(result.placement, args.output)
    if args.json:
        common.print_json(replay_json(result))
    else:
        names = capture.production if strategies is None else [s.name for s in strategies]
        print("\n".join(replay_lines(capture, result, args.output, names)))
    return common.EXIT_OK if result.fits else common.EXIT_NO


def strategies_arg(text: str | None, option: str) -> tuple[Strategy, ...] | None:
    """A comma-separated strategy list from the command line, or None when not given."""
    from tilefit.engine.strategy import parse_strategies

    if text is None:
        return None
    try:
        return parse_strategies(text)
    except ValueError as error:
        raise InputError(option, str(error)) from None


def replay_lines(
    capture: Capture, result: ReplayResult, output: str | None, strategies: Sequence[str]
) -> list[str]:
    lines = [
        f"{capture.name}: {counted(len(capture.requests), 'request')}, "
        f"{capture.available} B available; strategies: {', '.join(strategies)}"
    ]
    for number, attempt in enumerate(result.attempts, 1):
        lines += attempt_lines(number, attempt)
    if result.observed is not None:
        lines.append(_observed_line(result))
    if result.placement is not None:
        lines.append(f"placement written to {output}" if output else "-o FILE writes the placement")
    elif output:
        lines.append(f"no attempt fits: nothing written to {output}")
    return lines


def attempt_lines(number: int, attempt: Attempt) -> list[str]:
    head = f"attempt {number}, {attempt.strategy.name}:"
    failure = attempt.failure
    if failure is None:
        return [f"{head} fits, peak address {attempt.peak_address}"]
    if failure.broken is not None:  # an allocator replayed whole: its own rules, not the capture's
        rules = f"breaks the capture's rules ({failure.broken})"
        return [f"{head} FAILED: it places every unit, but {rules}"]
    placed = f"after placing {counted(failure.placed_before, 'unit')}"
    return [f"{head} FAILED on {failure.unit.id} {placed}", *failure_lines(failure)]


def failure_lines(failure: Failure, indent: str = "  ") -> list[str]:
    unit = failure.unit
    kind = f"sequence of {len(unit.members)}" if unit.is_sequence else "request"
    lines = [
        f"{indent}{unit.id}: {kind}, {unit.size} B, alignment {unit.alignment}, "
        f"class {unit.cls}, {lifetime_text(unit.start, unit.end)}"
    ]
    holes = failure.holes
    if not holes:
        return [*lines, f"{indent}no hole over its lifetime"]
    free = sum(end - start for start, end in holes)
    lines.append(f"{indent}holes over its lifetime, largest first ({len(holes)}, {free} B in all):")
    rows = [(f"[{s}, {e})", f"{e - s} B") for s, e in holes[:HOLES_SHOWN]]
    lines += common.table(rows, indent + "  ")
    if len(holes) > HOLES_SHOWN:
        lines.append(f"{indent}  ... {len(holes) - HOLES_SHOWN} more (--json lists all)")
    return lines


def _observed_line(result: ReplayResult) -> str:
    head = f"observed failure: {result.observed}:"
    if result.reproduced:
        return f"{head} reproduced"
    failure = result.failure
    if failure is None:
        return f"{head} NOT reproduced (an attempt fits)"
    return f"{head} NOT reproduced (the final failure is on {failure.unit.id})"
