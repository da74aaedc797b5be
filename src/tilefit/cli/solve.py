"""tilefit solve: find a placement or prove that none exists (the search portfolio)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from tilefit.cli import common
from tilefit.search.routes import INFEASIBLE, SOLVED, TIMEOUT

if TYPE_CHECKING:
    from tilefit.model.capture import Capture
    from tilefit.verdicts.answer import Answer

NAME = "solve"
HELP = (
    "search: find a placement under every constraint or prove that none exists "
    "(exit 0 solved, 1 infeasible or time-out, 2 bad input)"
)
EXAMPLE = """example:
  tilefit solve examples/buffers.1024.csv --time-limit 30 -o placement.json
  tilefit solve examples/buffers.1024.csv --minimize --json
  tilefit solve examples/buffers.1024.csv --node-limit 1000000

solve decides with the same search portfolio as diagnose (fast placements and
proofs racing on up to 2 cores). --node-limit runs the bare exact search
instead, whose answer depends only on the capture (not on the machine) as long
as the time limit is not reached first.
--time-limit bounds the whole command, from its start to its exit, the
irreducible subset included; only the one-time compilation of the search
kernels after installing tilefit is not counted (a line on stderr says so).
--minimize finds the lowest memory top (the end of the highest byte) at which a
placement exists; with several ranges, every range is cut at that top. On a
time-out it reports the interval [lower bound, best top found].
An infeasible capture is explained by an irreducible subset: units that cannot
be placed together, while dropping any one of them makes the rest placeable.
A "decided by" line names the route that decided. While the search runs, a
line on stderr shows what runs, --minimize's bracket of the lowest top and the
time left (on a terminal only, and not with --json).
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_capture_argument(parser)
    common.add_time_limit_argument(
        parser,
        "seconds for the whole command, the irreducible subset of an infeasible capture "
        "included (default 10); a time-out is never taken as infeasible",
    )
    parser.add_argument(
        "--minimize",
        "--minimise",
        action="store_true",
        help="find the lowest memory top that still fits",
    )
    parser.add_argument(
        "--node-limit",
        type=int,
        default=None,
        metavar="N",
        help="run the bare exact search for at most N nodes (deterministic), not the portfolio",
    )
    common.add_workers_argument(parser)
    parser.add_argument(
        "-o", "--output", metavar="PLACEMENT", help="write the placement found to this JSON file"
    )
    common.add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    started = args.invocation.started  # --time-limit bounds the whole process
    from tilefit.cli.progress import watching
    from tilefit.output.jsonout import solve_json
    from tilefit.output.stopped import stopped_json
    from tilefit.verdicts.solving import solve
    from tilefit.verdicts.stopped import NODE_LIMIT, TIME_LIMIT, stopped

    common.check_seconds(args.time_limit, "--time-limit", allow_zero=True)
    common.check_count(args.node_limit, "--node-limit", 1)
    common.check_count(args.workers, "--workers", 1, common.MAX_PROCESSES)
    with watching(args) as watch:  # a progress line on a terminal's stderr
        watch.stage(f"reading {Path(args.capture).name}")
        capture = common.read_capture_arg(args)
        result = solve(
            capture,
            common.time_left(started, args.time_limit),
            args.node_limit,
            minimize=args.minimize,
            workers=args.workers,
            watch=watch,
        )
    common.write_found(result.placement, args.output)
    limit = TIME_LIMIT if args.node_limit is None else NODE_LIMIT
    stop = stopped(result, minimize=args.minimize, option=limit)
    out = {**solve_json(result, capture), "stopped": stopped_json(stop)}
    if args.json:
        common.print_json(out)
    else:
        lines = solve_lines(capture, result, args.node_limit is not None, args.output)
        print("\n".join(lines + ([] if stop is None else [stop.text])))
    args.invocation.quick_exit = True  # the whole process is the limit's
    return common.EXIT_OK if result.status == SOLVED else common.EXIT_NO


def _exhausted(route: str | None) -> bool:
    """Whether the exact search was exhausted: the proof is route ``Exact``'s (a search ran,
    so its module is loaded already)."""
    from tilefit.search.exact.route import Exact

    return route == Exact.name


def solve_lines(
    capture: Capture, answer: Answer, bare: bool = False, output: str | None = None
) -> list[str]:
    """Human output: no timings, so the same capture prints the same text. ``bare``: the
    exact search alone decided (``--node-limit``). On an import, the toolchain's own plan
    first, then tilefit's."""
    from tilefit.output.headline import answer_headline

    status, least = answer.status, answer.least
    head = answer_headline(capture, answer)
    lines = [] if head is None else [f"{capture.name}: {head.title}", *head.lines(output), ""]
    if status == SOLVED:
        lines.append(f"solved: every request placed ({len(capture.requests)} requests)")
    elif status == INFEASIBLE and _exhausted(answer.route):
        lines.append("infeasible: the search was exhausted, no placement exists")
    elif status == INFEASIBLE:
        lines.append("infeasible: no placement exists")
    else:
        lines.append("timeout: no placement found and none proven impossible")
    decided = _decided_by(answer, bare)
    if decided is not None and status != TIMEOUT:
        lines.append(f"  decided by {decided}")
    if least is not None:
        if least.optimal:
            lines.append(f"lowest memory top: {least.best_top} (optimal)")
        elif least.best_top is not None:
            lines.append(f"lowest memory top: between {least.lower_bound} and {least.best_top}")
        elif answer.bracket is None:
            lines.append(f"lowest memory top: at least {least.lower_bound}")
    lines += closest_lines(answer)
    if answer.cut:
        lines.append(f"  cut short by the time limit: {'; '.join(answer.cut)}")
    if answer.heap is not None:
        lines.append(answer.heap.text)
    if status == INFEASIBLE:
        lines += subset_lines(capture, answer.irreducible_subset)
    return lines


def _decided_by(answer: Answer, bare: bool) -> str | None:
    """The route or pass that decided, as a "decided by" line says it."""
    if bare:
        return "the exact search alone (--node-limit)"
    if answer.route is not None:
        from tilefit.cli.diagnose import route_text

        return route_text(answer.route)
    if answer.strategy is None:
        return None
    if answer.least is not None and answer.least.optimal and not answer.nodes:
        return "a greedy pass that reaches the lower bound: none can be lower"
    return f"one greedy pass, no search: {answer.strategy}"


def closest_lines(answer: Answer) -> list[str]:
    """A timed-out search's closest placement and the bracket of the least top."""
    c, b = answer.closest, answer.bracket
    if c is None or b is None:
        return []
    from tilefit.cli.diagnose import bracket_text, closest_text

    return [f"  {closest_text(b.top, c.overflow, c.strategy)}", f"  {bracket_text(b)}"]


def subset_lines(capture: Capture, subset: tuple[str, ...] | None) -> list[str]:
    if subset is None:
        return ["no irreducible subset found within the time limit"]
    lines = [
        f"these {len(subset)} units cannot be placed together; "
        "without any one of them the rest fit:"
    ]
    rows: list[tuple[str, ...]] = [("id", "size", "align", "lifetime", "class", "constraints")]
    for ident in subset:
        for member in capture.members(ident):
            r = capture.request_by_id[member]
            rows.append(
                (
                    r.id,
                    str(r.size),
                    str(r.alignment),
                    f"[{r.start}, {r.end})",
                    r.cls,
                    _constraints(capture, ident, r.id, r.interleaved),
                )
            )
    lines += common.table(rows, indent="  ")
    return lines


def _constraints(capture: Capture, unit: str, request: str, interleaved: bool) -> str:
    notes: list[str] = []
    if unit != request:
        notes.append(f"sequence {unit}")
    if interleaved:
        notes.append("interleaved")
    partners = sorted(
        {c.b for c in capture.conflicts if c.a in (unit, request)}
        | {c.a for c in capture.conflicts if c.b in (unit, request)}
    )
    if partners:
        notes.append("conflicts " + ", ".join(partners))
    return "; ".join(notes) or "-"
