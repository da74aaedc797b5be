"""tilefit bound: the storage that must be live at once, whatever the placement."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tilefit.cli import common

if TYPE_CHECKING:
    from tilefit.verdicts.bounds import BoundReport

NAME = "bound"
HELP = (
    "live storage lower bound and support-aware bound against the available storage "
    "(informational: exit 0 even with a deficit, 2 on bad input)"
)
EXAMPLE = """example:
  tilefit bound tile0.json
  tilefit bound A.1048576.csv --json

A deficit in either bound proves that no placement exists; no deficit proves
nothing (the bounds ignore alignment gaps and bank separation). Use
`tilefit diagnose` for a verdict with an exit code.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_capture_argument(parser)
    common.add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    from tilefit.verdicts.bounds import bound

    report = bound(common.read_capture_arg(args))
    if args.json:
        from tilefit.output.jsonout import bound_json

        common.print_json(bound_json(report))
    else:
        print("\n".join(bound_lines(report)))
    return common.EXIT_OK


def bound_lines(report: BoundReport) -> list[str]:
    s = report.support
    union = " ".join(f"[{start}, {end})" for start, end in s.union) or "(empty)"
    lines = common.table(
        [
            ("available storage", f"{report.available} B"),
            ("live storage lower bound", f"{report.lower_bound} B at step {report.peak_step}"),
            ("deficit", f"{report.deficit} B"),
            ("support-aware deficit", f"{report.support_deficit} B"),
        ]
    )
    lines.append(
        f"  tightest: step {s.step}, {s.demand} B live of {', '.join(s.classes) or 'no class'}, "
        f"which may use only {union} = {s.capacity} B (ranges {', '.join(s.ranges) or 'none'})"
        + ("" if s.exhaustive else "; not every union of allowed sets was tried")
    )
    lines.append(
        f"contributors at step {report.peak_step}: {len(report.contributors)} requests, "
        f"{report.lower_bound} B"
    )
    for cls, total in report.class_totals:
        lines.append(f"  class {cls}: {total} B")
        members = [c for c in report.contributors if c.cls == cls]
        lines += common.table(
            [("id", "size", "class", "label")]
            + [(c.id, f"{c.size} B", c.cls, c.label or "-") for c in members],
            indent="    ",
        )
    return lines
