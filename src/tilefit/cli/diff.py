"""tilefit diff: what changed between two captures of one tile, and what overloads the second."""

from __future__ import annotations

import argparse
from math import floor
from typing import TYPE_CHECKING

from tilefit.cli import common
from tilefit.model.errors import InputError
from tilefit.model.words import counted, lifetime_text

if TYPE_CHECKING:
    from tilefit.model.capture import Capture, Range, Request
    from tilefit.verdicts.diff import CaptureDiff, ProfileRun, RequestChange, WindowCauses

NAME = "diff"
HELP = (
    "what changed from BASE to OTHER (requests matched by id), the live bytes of both, "
    "and the changes that create each overloaded window of OTHER "
    "(informational: exit 0, 2 on bad input)"
)
EXAMPLE = """example:
  tilefit diff examples/1-0-baseline.json examples/1-0.json
  tilefit diff examples/1-0-baseline.json examples/1-0.json --json --edits-out undo.json
  tilefit whatif examples/1-0.json --edits undo.json

A request is added, removed, resized, realigned, moved in time (its lifetime
changed) or reclassed (its class or interleaving changed); a new label alone
is no change. For each overloaded window of OTHER, the causes are the changed
requests live at its worst step, ranked by the bytes they add there compared
with BASE: a request live there in both with the same size is not a cause.

--edits-out FILE writes the edits that set OTHER's requests back to BASE's
(an edits file, docs/edits.md): `tilefit whatif OTHER --edits FILE` then
tries them, and can be pared down to the changes worth undoing.
"""

_REQUESTS_TOP = 30  # changed requests listed
_OTHERS_TOP = 10  # sequence and conflict changes listed
_RUNS_TOP = 5  # runs of steps where OTHER has more live bytes
_CAUSES_TOP = 10  # causes listed per window


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("base", metavar="BASE", help="the capture to compare against (.json/.csv)")
    parser.add_argument("other", metavar="OTHER", help="the capture that changed (.json/.csv)")
    parser.add_argument(
        "--capacity",
        type=int,
        default=None,
        metavar="BYTES",
        help="memory size for a minimalloc CSV among them (default: from NAME.CAPACITY.csv)",
    )
    parser.add_argument(
        "--edits-out",
        metavar="FILE",
        help="write the edits that turn OTHER's requests back into BASE's (for tilefit whatif)",
    )
    common.add_json_argument(parser)


def run(args: argparse.Namespace) -> int:
    from tilefit.verdicts.diff import diff

    if args.capacity is not None and not any(
        p.lower().endswith(".csv") for p in (args.base, args.other)
    ):
        raise InputError(
            "--capacity",
            "applies to a minimalloc CSV among BASE and OTHER; a JSON capture says its own "
            "memory (ask another with tilefit whatif --capacity-add)",
        )
    d = diff(_read(args.base, args.capacity), _read(args.other, args.capacity))
    if args.edits_out:
        from tilefit.formats.edits import edits_text
        from tilefit.formats.save import write_text_atomic
        from tilefit.verdicts.diff import revert_edits

        write_text_atomic(args.edits_out, edits_text(revert_edits(d)))
    if args.json:
        from tilefit.output.jsonout import diff_json

        common.print_json(diff_json(d))
    else:
        print("\n".join(diff_lines(d)))
    return common.EXIT_OK


def _read(path: str, capacity: int | None) -> Capture:
    from tilefit.formats.load import read_capture

    return read_capture(path, capacity=capacity if path.lower().endswith(".csv") else None)


def diff_lines(d: CaptureDiff) -> list[str]:
    base, other = d.base, d.other
    tile = f", tile {other.tile}" if d.same_tile and other.tile is not None else ""
    lines = [f"BASE {base.name} -> OTHER {other.name}{tile}"]
    if not d.same_tile:
        lines.append(
            f"note: BASE is tile {base.tile} and OTHER tile {other.tile}: "
            "these are captures of different tiles"
        )
    if d.matched == 0 and base.requests and other.requests:
        lines.append(
            "note: 0 requests matched: no id of OTHER is in BASE (requests are matched by "
            "id), so these are unrelated captures, or their ids were renamed; every request "
            "counts as removed or added"
        )
    lines += _summary(d)
    lines += _request_lines(d)
    lines += _structure_lines(d)
    lines += _profile_lines(d.profile)
    lines += _window_lines(d)
    lines += _unrevertible_lines(d)
    return lines


def _unrevertible_lines(d: CaptureDiff) -> list[str]:
    """What --edits-out leaves out: no edit re-adds a request or changes its alignment or class."""
    left = d.not_revertible
    if not left:
        return []
    shown = left[:_OTHERS_TOP]
    lines = [
        f"no edit undoes {len(left)} change{'s' if len(left) > 1 else ''} (--edits-out skips):"
    ]
    lines += common.table([(c.id, what_changed(c)) for c in shown], indent="  ")
    return lines + _more(len(left), len(shown))


def _summary(d: CaptureDiff) -> list[str]:
    base, other = d.base, d.other
    rows = [
        (f"  {what}", str(d.count(kind)))
        for kind, what in (
            ("added", "added"),
            ("removed", "removed"),
            ("resized", "resized"),
            ("realigned", "realigned"),
            ("moved", "moved in time"),
            ("reclassed", "reclassed"),
        )
    ]
    seqs = {k: sum(1 for s in d.sequences if s.kind == k) for k in ("added", "removed", "changed")}
    memory = d.memory
    if memory.changed:
        mem = f"available {memory.base.available} -> {memory.other.available} B"
        mem += "" if memory.base.size == memory.other.size else f", size {_arrow_size(d)}"
    else:
        mem = f"unchanged, {memory.base.available} B available"
    horizon = str(base.horizon) if base.horizon == other.horizon else _arrow_horizon(d)
    return [
        f"requests: {len(base.requests)} in BASE, {len(other.requests)} in OTHER, "
        f"{d.matched} matched",
        *common.table(rows),
        f"sequences: {seqs['added']} added, {seqs['removed']} removed, "
        f"{seqs['changed']} changed members",
        f"conflicts: {len(d.conflicts_added)} added, {len(d.conflicts_removed)} removed",
        f"memory: {mem}",
        f"horizon: {horizon}",
    ]


def _arrow_size(d: CaptureDiff) -> str:
    return f"{d.memory.base.size} -> {d.memory.other.size} B"


def _arrow_horizon(d: CaptureDiff) -> str:
    return f"{d.base.horizon} -> {d.other.horizon}"


def _request_lines(d: CaptureDiff) -> list[str]:
    if not d.requests:
        return []
    shown = d.requests[:_REQUESTS_TOP]
    lines = [f"changed requests ({len(d.requests)}):"]
    lines += common.table([(c.id, what_changed(c)) for c in shown], indent="  ")
    return lines + _more(len(d.requests), len(shown))


def what_changed(c: RequestChange) -> str:
    """``lifetime [11, 13) -> [7, 9)``, ``size 35808 -> 19480 B``, ...; "; " between them."""
    b, o = c.base, c.other
    if b is None or o is None:
        r = o if b is None else b
        assert r is not None
        return f"{'added' if b is None else 'removed'}: {_request(r)}"
    parts = []
    if b.size != o.size:
        parts.append(f"size {b.size} -> {o.size} B")
    if b.alignment != o.alignment:
        parts.append(f"alignment {b.alignment} -> {o.alignment}")
    if (b.start, b.end) != (o.start, o.end):
        parts.append(f"lifetime [{b.start}, {b.end}) -> [{o.start}, {o.end})")
    if b.cls != o.cls:
        parts.append(f"class {b.cls} -> {o.cls}")
    if b.interleaved != o.interleaved:
        parts.append("now interleaved" if o.interleaved else "no longer interleaved")
    return "; ".join(parts)


def _request(r: Request) -> str:
    where = ", interleaved" if r.interleaved else ""
    return f"{r.size} B, align {r.alignment}, {lifetime_text(r.start, r.end)}, class {r.cls}{where}"


def _structure_lines(d: CaptureDiff) -> list[str]:
    """The sequence, conflict and memory changes, when there are any."""
    rows: list[tuple[str, str]] = []
    for s in d.sequences[:_OTHERS_TOP]:
        if s.base is None or s.other is None:
            members = s.other if s.base is None else s.base
            rows.append((f"sequence {s.id}", f"{s.kind}, {counted(len(members or ()), 'member')}"))
        else:
            rows.append((f"sequence {s.id}", f"members {_ids(s.base)} -> {_ids(s.other)}"))
    more = _more(len(d.sequences), min(len(d.sequences), _OTHERS_TOP))
    for kind, edges in (("added", d.conflicts_added), ("removed", d.conflicts_removed)):
        rows += [(f"conflict {e.a} / {e.b}", kind) for e in edges[:_OTHERS_TOP]]
        more += _more(len(edges), min(len(edges), _OTHERS_TOP))
    rows += [(f"range {_range(r)}", "added") for r in d.memory.ranges_added]
    rows += [(f"range {_range(r)}", "removed") for r in d.memory.ranges_removed]
    if not rows:
        return []
    return ["other changes:", *common.table(rows, indent="  "), *more]


def _ids(members: tuple[str, ...]) -> str:
    return ", ".join(members[:4]) + (f", ... {len(members) - 4} more" if len(members) > 4 else "")


def _range(r: Range) -> str:
    name = f"{r.name} " if r.name else ""
    only = f" (only {', '.join(r.classes)})" if r.classes is not None else ""
    return f"{name}[{r.start}, {r.end}){only}"


def _more(total: int, shown: int) -> list[str]:
    return [f"  ... {total - shown} more (--json lists them all)"] if total > shown else []


def _profile_lines(profile: tuple[ProfileRun, ...]) -> list[str]:
    more = [r for r in profile if r.change > 0]
    fewer = sum(1 for r in profile if r.change < 0)
    if not more and not fewer:
        return ["live bytes: the same at every step"]
    head = f"live bytes: OTHER has more than BASE at {_runs(len(more))}, fewer at {_runs(fewer)}"
    if not more:
        return [head]
    top = sorted(more, key=lambda r: (-r.change, r.start))[:_RUNS_TOP]
    rows = [("steps", "BASE", "OTHER", "more")]
    rows += [
        (common.steps_text(r.start, r.end), f"{r.base} B", f"{r.other} B", f"+{r.change} B")
        for r in top
    ]
    head += "; the largest:" if len(more) > len(top) else ":"
    return [head, *common.table(rows, indent="  ")]


def _runs(count: int) -> str:
    return f"{count} run{'' if count == 1 else 's'} of steps"


def _window_lines(d: CaptureDiff) -> list[str]:
    if not d.windows:
        return ["overloaded windows of OTHER: none"]
    count = len(d.windows)
    lines = [
        f"overloaded windows of OTHER: {count}; the changes live at each window's worst step, "
        "by the bytes they add there compared with BASE:"
    ]
    by_id = {c.id: c for c in d.requests}
    for k, w in enumerate(d.windows, 1):
        lines += _one_window(k, w, by_id)
    return lines + _observed_line(d, by_id)


def _observed_line(d: CaptureDiff, by_id: dict[str, RequestChange]) -> list[str]:
    """Whether the unit OTHER's production error names is a cause: often it is only the victim."""
    failed = d.other.observed_failed
    if failed is None:
        return []
    members = set(d.other.members(failed))
    windows = [k for k, w in enumerate(d.windows, 1) if members & {c.id for c in w.causes}]
    if windows:
        verdict = f"a cause of window{'s' if len(windows) > 1 else ''} " + ", ".join(
            map(str, windows)
        )
    else:
        how = "changed" if members & by_id.keys() else "unchanged from BASE"
        verdict = f"{how}, a cause of no window"
    return [f"OTHER's observed failure names {failed}: {verdict}"]


def _one_window(k: int, w: WindowCauses, by_id: dict[str, RequestChange]) -> list[str]:
    win = w.window
    steps = (
        f"step {w.step}"
        if win.end == win.start + 1
        else f"steps {common.steps_text(win.start, win.end)}"
    )
    where = "" if win.end == win.start + 1 else f", worst at step {w.step}"
    lines = [
        f"  window {k}, {steps}: {win.excess} B over{where}; {w.other_live} B live, "
        f"{w.base_live} B in BASE ({w.increase:+d} B)"
    ]
    if not w.causes:
        lines.append("    no change adds bytes at this step: it is as overloaded in BASE")
        return lines
    shown = w.causes[:_CAUSES_TOP]
    lines += common.table(
        [(c.id, f"+{c.adds} B", what_changed(by_id[c.id])) for c in shown], indent="    "
    )
    if len(w.causes) > len(shown):
        lines.append(f"    ... {len(w.causes) - len(shown)} more")
    # Rounded down, so that 100% means all of it.
    share = (
        "" if w.share is None else f": {floor(w.share * 100)}% of OTHER's increase over BASE there"
    )
    n = len(w.causes)
    verb = "change adds" if n == 1 else "changes add"
    lines.append(f"    {n} {verb} {w.total} B{share}")
    return lines
