"""tilefit bound: the storage that must be live at once, whatever the placement."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tilefit.bounds.capacity import capacity_of
from tilefit.cli import common
from tilefit.model.words import counted

if TYPE_CHECKING:
    from tilefit.bounds.aligned import AlignedBound
    from tilefit.bounds.deficit import BoundReport
    from tilefit.bounds.overload import Window

NAME = "bound"
HELP = (
    "live storage lower bound and support-aware bound against the available storage "
    "(informational: exit 0 even with a deficit, 2 on bad input)"
)
EXAMPLE = """example:
  tilefit bound examples/1-0.json
  tilefit bound examples/buffers.1024.csv --json

A deficit in any bound proves that no placement exists; no deficit proves
nothing. The live and support-aware bounds count bytes; the aligned bound adds
the padding that alignment forces between the live requests (the top-most one
excepted), and says the lowest memory top any placement can have. None counts
bank separation. Use `tilefit diagnose` for a verdict with an exit code.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_capture_argument(parser)
    common.add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    from tilefit.bounds.deficit import bound

    report = bound(common.read_capture_arg(args))
    if args.json:
        from tilefit.output.jsonout import bound_json

        common.print_json(bound_json(report))
    else:
        print("\n".join(bound_lines(report)))
    args.invocation.quick_exit = True  # the interpreter's teardown, numpy's with it: 20 ms
    return common.EXIT_OK


def bound_lines(report: BoundReport) -> list[str]:
    s = report.support
    union = common.spans_text(s.union, "(empty)")
    lines = common.table(
        [
            ("available storage", f"{report.available} B"),
            ("live storage lower bound", f"{report.lower_bound} B at step {report.peak_step}"),
            ("aligned lower bound", aligned_text(report.aligned)),
            ("deficit", f"{report.deficit} B"),
            ("aligned deficit", f"{report.aligned_deficit} B"),
            ("support-aware deficit", f"{report.support_deficit} B"),
        ]
    )
    lines.append(
        f"  tightest: step {s.step}, {s.demand} B live of {', '.join(s.classes) or 'no class'}, "
        f"which may use only {union} = {s.capacity} B (ranges {', '.join(s.ranges) or 'none'})"
        + ("" if s.exhaustive else "; not every union of allowed sets was tried")
    )
    lines += meeting_lines(report)
    capacity = capacity_of(report)
    if capacity is not None:
        lines.append(
            f"capacity: no placement can exist, by {capacity.bound.short} ({capacity.over_text}); "
            f"at least {capacity.leaving:,} B must leave"
        )
    lines += window_lines(report.windows, report.available)
    p = report.pieces
    if p is not None:
        union = common.spans_text(p.union, "no stretch of memory")
        lines.append(
            f"pieces bound: at step {p.step}, {p.demand} B live may use only {union} = "
            f"{p.usable} B of stretches long enough to hold each: {p.excess} B short"
        )
        lines.append(
            "  (no placement exists; not a 'must leave' figure: a request shrunk to fit a "
            "shorter stretch may use it)"
        )
    lines.append(
        f"contributors at step {report.peak_step}: {counted(len(report.contributors), 'request')}, "
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


def meeting_lines(report: BoundReport) -> list[str]:
    """The heaviest pairwise-meeting set, where a cyclic capture's lifetime wraps."""
    m = report.meeting
    if m is None:
        return []
    shown = ", ".join(m.ids[:8]) + (f" and {len(m.ids) - 8} more" if len(m.ids) > 8 else "")
    lines = [
        f"meeting bound: {m.weight} B in {counted(len(m.ids), 'request')} whose lifetimes "
        f"meet pairwise on the circle ({shown}): {report.meeting_deficit} B over"
    ]
    if m.weight > report.lower_bound:
        lines.append("  (more than any one step holds: they need not share a step)")
    return lines


def aligned_text(a: AlignedBound) -> str:
    """``1088 B at step 3 (64 B of it padding); no placement ends below 1088``."""
    text = f"{a.span} B at step {a.step} ({a.padding} B of it padding)"
    if a.need < a.span:
        text += f", {a.need} B in {a.stretches} stretches of storage"
    return text if a.deficit else f"{text}; no placement ends below {a.top}"


_SHARED_TOP = 8  # requests named on the "live in several windows" line


def window_lines(windows: tuple[Window, ...], available: int) -> list[str]:
    """Every overloaded window: its steps, the bytes over at each, what must leave."""
    if not windows:
        return ["overloaded steps: none (no step needs more than its requests may use)"]
    count = sum(w.step_count for w in windows)
    lines = [
        f"overloaded: {len(windows)} window{'s' if len(windows) > 1 else ''} of "
        f"{count} step{'s' if count > 1 else ''} where the live requests need more than "
        "they may use"
    ]
    tighter = any(s.usable != available or s.over < s.excess for w in windows for s in w.steps)
    head = ["window", "steps", "needs", "usable", "over", "must leave"]
    rows = [head + (["usable in"] if tighter else [])]
    for k, w in enumerate(windows, 1):
        for j, s in enumerate(w.steps):
            row = [
                str(k) if j == 0 else "",
                common.steps_text(s.start, s.end),
                f"{s.demand} B",
                f"{s.usable} B",
                f"{s.excess} B",
                f"{w.must_leave} B" if j == 0 else "",
            ]
            if tighter:
                row.append(", ".join(s.ranges) if s.usable != available else "all ranges")
            rows.append(row)
    lines += common.table(rows, indent="  ")
    for k, w in enumerate(windows, 1):
        if w.by_source:
            top = w.by_source[:_SHARED_TOP]
            sources = ", ".join(f"{source} {total} B ({count})" for source, total, count in top)
            rest = len(w.by_source) - len(top)
            tail = f", ... {rest} more" if rest else ""
            lines.append(f"  window {k}, live at its worst step, by source: {sources}{tail}")
    by_count: dict[int, dict[str, int]] = {}
    for w in windows:
        for r in w.shared:
            by_count.setdefault(r.windows, {})[r.id] = r.size
    for n in sorted(by_count, reverse=True):
        ranked = sorted(by_count[n].items(), key=lambda item: (-item[1], item[0]))
        named = ", ".join(f"{i} {size} B" for i, size in ranked[:_SHARED_TOP])
        more = f", ... {len(ranked) - _SHARED_TOP} more" if len(ranked) > _SHARED_TOP else ""
        where = f"all {n}" if n == len(windows) else f"{n}"
        lines.append(
            f"  live in {where} windows, so shrinking one helps in each: "
            f"{counted(len(ranked), 'request')}, {sum(by_count[n].values())} B: {named}{more}"
        )
    return lines
