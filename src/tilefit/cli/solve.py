"""tilefit solve: find a placement or prove that none exists (exact search)."""

from __future__ import annotations

import argparse
from typing import Any

from tilefit.capture import Capture
from tilefit.cli import common

NAME = "solve"
HELP = (
    "exact search: find a placement under every constraint or prove that none exists "
    "(exit 0 solved, 1 infeasible or time-out, 2 bad input)"
)
EXAMPLE = """example:
  tilefit solve tile0.json --time-limit 30 -o tile0.placement.json
  tilefit solve A.1048576.csv --minimize --json

--minimize finds the lowest memory top (the end of the highest byte) at which a
placement exists; with several ranges, every range is cut at that top. On a
time-out it reports the interval [lower bound, best top found].
An infeasible capture is explained by an irreducible subset: units that cannot
be placed together, while dropping any one of them makes the rest placeable.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_capture_argument(parser)
    parser.add_argument(
        "--time-limit",
        type=float,
        default=10.0,
        metavar="S",
        help=(
            "seconds for the search (default 10), and as many again for the irreducible "
            "subset of an infeasible capture; a time-out is never taken as infeasible"
        ),
    )
    parser.add_argument(
        "--minimize", action="store_true", help="find the lowest memory top that still fits"
    )
    parser.add_argument(
        "-o", "--output", metavar="PLACEMENT", help="write the placement found to this JSON file"
    )
    common.add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    from tilefit.save import write_placement
    from tilefit.search import INFEASIBLE, SOLVED, irreducible_subset, minimize, solve

    if args.time_limit <= 0:
        from tilefit.errors import InputError

        raise InputError("--time-limit", "must be > 0")
    capture = common.read_capture_arg(args)
    out: dict[str, Any]
    if args.minimize:
        m = minimize(capture, args.time_limit)
        status, placement = m.status, m.placement
        out = {
            "status": status,
            "seconds": round(m.seconds, 3),
            "placement": placement.to_json() if placement else None,
            "nodes": m.nodes,
            "lower_bound": m.lower_bound,
            "best_top": m.best_top,
            "optimal": m.optimal,
        }
    else:
        r = solve(capture, args.time_limit)
        status, placement = r.status, r.placement
        out = {
            "status": status,
            "seconds": round(r.seconds, 3),
            "placement": placement.to_json() if placement else None,
            "nodes": r.nodes,
        }
    subset = irreducible_subset(capture, args.time_limit) if status == INFEASIBLE else None
    if status == INFEASIBLE:
        out["irreducible_subset"] = list(subset) if subset is not None else None
    if placement is not None and args.output:
        write_placement(placement, args.output)
    if args.json:
        common.print_json(out)
    else:
        print("\n".join(solve_lines(capture, out, subset)))
    return common.EXIT_OK if status == SOLVED else common.EXIT_NO


def solve_lines(capture: Capture, out: dict[str, Any], subset: tuple[str, ...] | None) -> list[str]:
    """Human output: no timings, so the same capture prints the same text."""
    status = out["status"]
    lines: list[str] = []
    if status == "solved":
        lines.append(f"solved: every request placed ({len(capture.requests)} requests)")
    elif status == "infeasible":
        lines.append("infeasible: the search was exhausted, no placement exists")
    else:
        lines.append("timeout: no placement found and none proven impossible")
    if "lower_bound" in out:
        if out["optimal"]:
            lines.append(f"lowest memory top: {out['best_top']} (optimal)")
        elif out["best_top"] is not None:
            lines.append(
                f"lowest memory top: between {out['lower_bound']} and {out['best_top']} "
                "(time limit reached)"
            )
        else:
            lines.append(f"lowest memory top: at least {out['lower_bound']}")
    if status == "infeasible":
        lines += subset_lines(capture, subset)
    return lines


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
