"""tilefit whatif: edit a capture, then the bound and the verdict before and after, side by side."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from itertools import zip_longest
from typing import TYPE_CHECKING

from tilefit.cli import common
from tilefit.verdicts.verdict import Verdict

if TYPE_CHECKING:
    from tilefit.bounds.overload import Window
    from tilefit.model.edits import Edit
    from tilefit.verdicts.diagnose import Diagnosis
    from tilefit.verdicts.whatif import WhatIf

NAME = "whatif"
HELP = (
    "edit a capture (drop, resize, move in time, add or remove memory) and compare the bound "
    "and the verdict before and after"
)
EXAMPLE = """example:
  tilefit whatif examples/1-0.json --resize 'm*.l3.cast.staging=-16328'   # still no: exit 1
  tilefit whatif examples/1-0.json --drop w3.attn_qkv --capacity-add 4096 -o edited.json
  tilefit whatif examples/1-0.json --edits examples/edits/1-0-early-cast.json --json
  tilefit whatif examples/small.json --capacity-add -200   # 200 B less: still fits

edits (each option may be repeated; ID is a request or sequence id, or a
shell-style pattern such as 'm*.staging'; a sequence id stands for its members):
  --drop ID                remove the requests (a sequence closes up around them;
                           conflicts naming a removed id go too)
  --resize ID=BYTES        set the size; ID=+BYTES or ID=-BYTES changes it
  --lifetime ID=START:END  live during steps [START, END) (on a circle START > END
                           wraps: [START, period) then [0, END))
  --capacity-add BYTES     more memory at the top, open to every class; -BYTES
                           removes that much available storage, the highest first
  --edits FILE             the edits of an edits file (docs/edits.md)

order: the edits of every --edits FILE first, in the order the files are
given, then the other options in the order they appear on the command line;
each edit applies to the capture the previous ones made.

Each diagnosis (before and after) gets --time-limit seconds for its search.

exit code: 0 when the edited capture fits (fits or fragmentation), 1 otherwise,
2 on bad input, including an edit that names no request or would break the
capture format (a size <= 0, a lifetime outside [0, horizon], a sequence that
can no longer be aligned).
"""

_EDIT_HELP = {
    "--drop": ("ID", "remove the requests ID names"),
    "--resize": ("ID=BYTES", "set the size of ID's requests (+BYTES/-BYTES: change it)"),
    "--lifetime": (
        "ID=START:END",
        "let ID's requests live during steps [START, END) (START > END wraps on a circle)",
    ),
    "--capacity-add": (
        "BYTES",
        "add BYTES of memory at the top, open to every class (-BYTES: remove the top BYTES)",
    ),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_capture_argument(parser)
    for option, (metavar, text) in _EDIT_HELP.items():
        # One list for all of them keeps the command line's order.
        parser.add_argument(
            option,
            dest="edit_options",
            action="append",
            type=_tagged(option),
            metavar=metavar,
            help=text + " (repeatable)",
        )
    parser.add_argument(
        "--edits",
        dest="edit_files",
        action="append",
        metavar="FILE",
        help="apply the edits of an edits file (repeatable; before the options' edits)",
    )
    common.add_json_argument(parser)
    parser.add_argument("-o", "--output", metavar="FILE", help="write the edited capture (JSON)")
    common.add_time_limit_argument(
        parser, "seconds for each diagnosis's search when the strategies fail (default 10)"
    )
    common.add_workers_argument(parser)


def _tagged(option: str) -> Callable[[str], tuple[str, str]]:
    def tag(text: str) -> tuple[str, str]:
        return option, text

    return tag


def run(args: argparse.Namespace) -> int:
    from tilefit.formats.edits import edit_from_option, read_edits
    from tilefit.model.errors import InputError
    from tilefit.verdicts.whatif import what_if

    common.check_seconds(args.time_limit, "--time-limit", allow_zero=True)
    common.check_count(args.workers, "--workers", 1, common.MAX_PROCESSES)
    if args.output and args.output.lower().endswith(".csv"):
        # An edited capture may hold what a CSV cannot (a range for --capacity-add).
        raise InputError("--output", "writes a JSON capture (tilefit convert makes a CSV)")
    options = args.edit_options or []
    files = args.edit_files or []
    no_edits = InputError(
        "whatif", "no edits: give --drop, --resize, --lifetime, --capacity-add or --edits"
    )
    if not options and not files:
        raise no_edits
    edits: list[Edit] = [e for path in files for e in read_edits(path)]
    edits += [edit_from_option(option, text) for option, text in options]
    if not edits:
        raise no_edits
    capture = common.read_capture_arg(args)
    result = what_if(capture, edits, time_limit=args.time_limit, workers=args.workers)
    if args.output:
        from tilefit.formats.save import write_capture

        write_capture(result.edited, args.output)
    if args.json:
        from tilefit.output.jsonout import whatif_json
        from tilefit.output.stopped import stopped_json
        from tilefit.verdicts.stopped import diagnosis_stopped

        sides = {"before": result.before, "after": result.after}
        stops = {side: stopped_json(diagnosis_stopped(d)) for side, d in sides.items()}
        common.print_json({**whatif_json(result), "stopped": stops})
    else:
        print("\n".join(whatif_lines(result)))
    return common.EXIT_OK if result.fits else common.EXIT_NO


def whatif_lines(w: WhatIf) -> list[str]:
    from tilefit.formats.edits import edit_argument
    from tilefit.verdicts.stopped import diagnosis_stopped

    b, a = w.before, w.after
    title = f"{b.capture}" + (f" (tile {b.tile})" if b.tile is not None else "")
    lines = [f"{title}, what if: {b.verdict.upper()} -> {a.verdict.upper()}", ""]
    lines.append("edits, in the order applied:")
    rows = []
    for applied in w.edits:
        edit = applied.edit
        text = edit_argument(edit)
        origin = "" if edit.place.startswith("--") else f"from {edit.place}"
        n = len(applied.requests)
        touched = "memory" if not n else f"{n} request{'s' if n > 1 else ''}"
        rows.append((text, touched, origin))
    lines += [line.rstrip() for line in common.table(rows, indent="  ")]
    lines.append("")
    lines += common.table(
        [
            ("", "before", "after"),
            ("available", f"{b.bound.available} B", f"{a.bound.available} B"),
            ("live storage lower bound", _peak(b), _peak(a)),
            ("deficit", f"{b.bound.deficit} B", f"{a.bound.deficit} B"),
            (
                "support-aware deficit",
                f"{b.bound.support_deficit} B",
                f"{a.bound.support_deficit} B",
            ),
            ("must leave", f"{b.bound.leaving} B", f"{a.bound.leaving} B"),
            ("overloaded windows", str(len(b.bound.windows)), str(len(a.bound.windows))),
            ("verdict", _verdict(b), _verdict(a)),
        ],
        indent="  ",
    )
    for side, d in (("before", b), ("after", a)):
        why = _why(d)
        if why:
            lines.append(f"  {side}: {why}")
        if (stop := diagnosis_stopped(d)) is not None:
            lines.append(f"  {side}: {stop.text}")
    lines.append("")
    lines += _window_lines(w)
    return lines


def _peak(d: Diagnosis) -> str:
    return f"{d.bound.lower_bound} B at step {d.bound.peak_step}"


def _verdict(d: Diagnosis) -> str:
    return f"{d.verdict} ({d.strategy})" if d.strategy else d.verdict


def _why(d: Diagnosis) -> str | None:
    """What the table cannot say: who cannot be placed together, or how close it came."""
    if d.verdict == Verdict.INFEASIBLE and d.pieces is not None:
        p = d.pieces
        return (
            f"infeasible: at step {p.step}, {p.demand} B live may use only {p.usable} B of "
            f"stretches long enough to hold each request ({p.excess} B short)"
        )
    if d.verdict == Verdict.INFEASIBLE and d.subset:
        kind = "an irreducible subset" if d.irreducible else "an infeasible subset"
        return (
            f"infeasible although no bound shows it; these cannot be placed together ({kind}): "
            + ", ".join(d.subset)
        )
    if d.verdict == Verdict.UNDETERMINED and d.closest is not None:
        return (
            f"undetermined; the closest placement found needs {d.closest.overflow} B more "
            "than available (try a larger --time-limit)"
        )
    return None


def _window_lines(w: WhatIf) -> list[str]:
    before, after = w.before.bound.windows, w.after.bound.windows
    if not before and not after:
        return ["overloaded windows: none before, none after"]
    rows = [("before", "excess", "after", "excess")]
    for match in w.windows:
        pairs = zip_longest(
            (before[k] for k in match.before), (after[k] for k in match.after), fillvalue=None
        )
        for j, (old, new) in enumerate(pairs):
            empty = "-" if j == 0 else ""  # a continuation row of a split or merge stays blank
            rows.append((*_cells(old, empty), *_cells(new, empty)))
    return [
        "overloaded windows, before and after (matched by the steps they share):",
        *(line.rstrip() for line in common.table(rows, indent="  ")),
    ]


def _cells(window: Window | None, empty: str) -> tuple[str, str]:
    if window is None:
        return empty, empty
    steps = (
        str(window.start) if window.end == window.start + 1 else f"[{window.start}, {window.end})"
    )
    return steps, f"{window.excess} B"
