"""tilefit diagnose: fits, fragmentation or capacity, with the evidence."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from tilefit.cli import common
from tilefit.cli.bound import window_lines
from tilefit.model.words import counted, lifetime_text
from tilefit.verdicts.verdict import Verdict

if TYPE_CHECKING:
    from types import ModuleType

    from tilefit.model.capture import Capture
    from tilefit.search.bracket import Bracket
    from tilefit.verdicts.diagnose import Diagnosis

NAME = "diagnose"
HELP = "one verdict for a tile: fits, fragmentation, capacity, infeasible or undetermined"
EXAMPLE = """example:
  tilefit diagnose examples/0-0.json -o placement.json
  tilefit diagnose examples/1-0.json --json           # capacity: exit 1

verdicts:
  fits           the production attempts succeed
  fragmentation  they fail, but another strategy or the search finds a
                 valid placement (checked by the independent checker; -o writes it)
  capacity       a bound proves no placement exists: the deficit, the peak and
                 who makes it, and how many bytes must leave
  infeasible     the search proves no placement exists (with a small
                 set of requests that cannot be placed together)
  undetermined   neither proven within --time-limit; the closest placement
                 found says how many bytes more than available it needs

A "decided by" line under the verdict names the bound, strategy or search
route that decided it. While the search runs, a line on stderr shows what
runs and the time left (on a terminal only, and not with --json).

exit code: 0 for fits or fragmentation, 1 otherwise, 2 on bad input.
"""

_TOP = 8  # contributors listed per class in human output


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_capture_argument(parser)
    common.add_json_argument(parser)
    parser.add_argument(
        "-o",
        "--output",
        metavar="PLACEMENT",
        help="write the placement found (fits/fragmentation)",
    )
    common.add_time_limit_argument(
        parser,
        "seconds for the whole command when the strategies fail: the search, then the"
        " closest placement (default 10); the one-time compilation of the search kernels"
        " after installing tilefit is not counted",
    )
    parser.add_argument(
        "--no-search", action="store_true", help="stop after the strategies (no search)"
    )
    common.add_workers_argument(parser)


def run(args: argparse.Namespace) -> int:
    started = args.invocation.started  # --time-limit bounds the whole process
    from tilefit.cli.progress import watching
    from tilefit.output.jsonout import diagnosis_json
    from tilefit.output.stopped import stopped_json
    from tilefit.verdicts.diagnose import diagnose
    from tilefit.verdicts.stopped import diagnosis_stopped

    common.check_seconds(args.time_limit, "--time-limit", allow_zero=True)
    common.check_count(args.workers, "--workers", 1, common.MAX_PROCESSES)
    with watching(args) as watch:  # a progress line on a terminal's stderr
        watch.stage(f"reading {Path(args.capture).name}")
        capture = common.read_capture_arg(args)
        result = diagnose(
            capture,
            time_limit=common.time_left(started, args.time_limit),
            search=not args.no_search,
            workers=args.workers,
            watch=watch,
            lower=True,
        )
    common.write_found(result.offered, args.output)
    stop = diagnosis_stopped(result, searched=not args.no_search)
    telling = _telling(capture)
    if args.json:
        facts = {"tpumlir": telling.told_json(capture, result) if telling else None}
        common.print_json(
            {**diagnosis_json(result, args.output), "stopped": stopped_json(stop), **facts}
        )
    else:
        lines = diagnosis_lines(result, args.output)
        if stop is not None:  # said after the answer's first lines, where the eye is
            lines.insert(lines.index(""), f"  {stop.text}")
        # A TPU-MLIR capture: its group, slices, tensors.
        told = telling.told_lines(capture, result) if telling else []
        if told:
            at = lines.index("") + 1
            lines[at:at] = [*told, ""]
        print("\n".join(lines))
    args.invocation.quick_exit = True  # the whole process is the limit's
    return common.EXIT_OK if result.verdict.places else common.EXIT_NO


TPUMLIR = "TPU-MLIR"  # an import's origin.tool (tilefit.toolchains.tpumlir.words.TOOL)


def _telling(capture: Capture) -> ModuleType | None:
    """The module that says a verdict in TPU-MLIR's words, for a capture TPU-MLIR's import
    made; None for any other, whose diagnose then never loads the toolchain (about 35
    dataclasses, 25 ms of a command that takes 150)."""
    if capture.origin is None or capture.origin.tool != TPUMLIR:
        return None
    from tilefit.toolchains.tpumlir import telling

    return telling


def diagnosis_lines(d: Diagnosis, output: str | None = None) -> list[str]:
    from tilefit.output.headline import diagnosis_headline

    title = f"{d.capture}" + (f" (tile {d.tile})" if d.tile is not None else "")
    head = diagnosis_headline(d)
    if head is None:
        lines = [f"{title}: {d.verdict.upper()}", ""]
    else:  # an import: the toolchain's own plan first, then tilefit's
        lines = [f"{title}: {head.title}", *head.lines(output), ""]
    if d.heap is not None:
        lines += [d.heap.text, ""]
    lines += _production_lines(d)
    lines.append("")
    verdict = _verdict_lines(d, output)
    decided = decided_by(d)
    if decided is not None:
        verdict.insert(1, f"  decided by {decided}")
    lines += verdict
    if d.cut:
        lines.append(f"  cut short by the time limit: {'; '.join(d.cut)}")
    lines.append("")
    lines += _peak_lines(d)
    return lines


def decided_by(d: Diagnosis) -> str | None:
    """Which bound, strategy or search route decided the verdict (None: undetermined)."""
    if d.verdict == Verdict.FITS:
        return f"the production replay: {d.strategy} places every unit"
    if d.capacity is not None:  # the bound the answer names, with its figure
        return f"{d.capacity.bound.says} ({d.capacity.over_text})"
    if d.route is None:
        if d.verdict == Verdict.FRAGMENTATION:
            return f"a strategy other than production's: {d.strategy}, one greedy pass, no search"
        return None
    return route_text(d.route)


def route_text(name: str) -> str:
    """A search route as the verdicts' "decided by" says it."""
    from tilefit.search.routes import BOUND, CLOSEST, route

    member = route(name).member
    if member == BOUND:
        return f"the {name} bound, before any search"
    if member == CLOSEST:
        return f"the closest placement's {name}: annealing in less memory ended below the top"
    return f"the search: route {name} of its {member} member"


def _production_lines(d: Diagnosis) -> list[str]:
    lines = [f"production replay: {d.heap.replay_text}" if d.heap else "production replay:"]
    for a in d.production:
        if a.cut:
            lines.append(
                f"  {a.strategy.name}: cut by the time limit ({len(a.placed)} units placed)"
            )
            continue
        if a.failure is None:
            lines.append(f"  {a.strategy.name}: fits (peak address {a.peak_address})")
            continue
        u = a.failure.unit
        if a.failure.broken is not None:
            lines.append(
                f"  {a.strategy.name}: places every unit, but its placement breaks the "
                f"capture's rules ({a.failure.broken}): it does not fit"
            )
            continue
        kind = f"sequence of {len(u.members)}" if u.is_sequence else "request"
        lines.append(
            f"  {a.strategy.name}: failed on {u.id} ({kind}, {u.size} B, align {u.alignment}, "
            f"class {u.cls}, {lifetime_text(u.start, u.end)}) after placing "
            f"{counted(a.failure.placed_before, 'unit')}; "
            f"largest hole {_largest_hole(a.failure.holes)}"
        )
    if d.reproduced is not None:
        lines.append(
            "  reproduces the observed failure" + _same_addresses(d)
            if d.reproduced
            else "  does NOT reproduce the observed failure" + _same_addresses(d)
        )
    return lines


def _same_addresses(d: Diagnosis) -> str:
    """What the comparison covered where the capture gives the compiler's addresses too."""
    if d.observed_placed is None:
        return ""
    if d.reproduced:
        placed = counted(d.observed_placed, "request")
        failed = d.production_failed_id
        return f": {failed} unplaced, the {placed} placed before it at the same addresses"
    if d.production and d.production[-1].fits:
        return " (the replay places every request)"
    return " (the request unplaced, or the addresses of those placed before it, differ)"


def _largest_hole(holes: tuple[tuple[int, int], ...]) -> str:
    if not holes:
        return "none"
    start, end = holes[0]
    return f"{end - start} B at [{start}, {end}) of {counted(len(holes), 'hole')}"


def _verdict_lines(d: Diagnosis, output: str | None) -> list[str]:
    report = d.bound
    live = f"{report.lower_bound} B live at step {report.peak_step}"
    a = report.aligned
    if a.span > report.lower_bound:
        at = "" if a.step == report.peak_step else f" at step {a.step}"
        live += f" ({a.span} B{at} with the padding alignment forces)"
    avail = f"{live}, {report.available} B available"
    if d.verdict == Verdict.FITS:
        return [f"fits with {d.strategy}; {avail}"]
    if d.verdict == Verdict.FRAGMENTATION:
        lines = [
            f"fragmentation: a valid placement exists under the same constraints; "
            f"{d.strategy} finds it (checked by the independent checker)",
            f"  no bound rules a placement out: {avail}",
        ]
        lines.append(f"  placement written to {output}" if output else "  -o FILE writes it")
        return lines
    if d.verdict == Verdict.CAPACITY:
        lines = [
            "capacity: no placement can exist, whatever the order or the addresses",
            f"  {avail}: at least {d.bound.deficit} B over" if d.bound.deficit else f"  {avail}",
        ]
        s = d.bound.support
        if s.deficit:
            lines.append(
                f"  support-aware: {s.demand} B at step {s.step} may use only {s.capacity} B "
                f"(classes {', '.join(s.classes)}): {s.deficit} B over"
            )
        if d.bound.aligned_deficit > max(d.bound.deficit, s.deficit):
            lines.append(
                f"  aligned: with the padding their alignments force between them, the live "
                f"requests need {a.need} B of storage: {d.bound.aligned_deficit} B over"
            )
        m = d.bound.meeting
        if m is not None and d.bound.meeting_deficit > max(d.bound.deficit, s.deficit):
            lines.append(
                f"  meeting: {m.weight} B in {len(m.ids)} requests whose lifetimes meet "
                f"pairwise on the circle ({', '.join(m.ids)}), no two may share a byte: "
                f"{d.bound.meeting_deficit} B over"
            )
        windows = d.bound.windows
        if not windows and d.bound.meeting_deficit > d.bound.aligned_deficit:
            lines.append(
                f"  no step's bytes alone exceed what they may use: at least "
                f"{d.bound.meeting_deficit} B must leave that set (tilefit bound)"
            )
            return lines
        if not windows:
            lines.append(
                "  no step's bytes alone exceed what they may use: the padding makes the "
                "deficit, so requests must shrink or leave until the aligned need fits "
                "(tilefit bound)"
            )
            return lines
        if len(windows) == 1:
            w = windows[0]
            where = f"step {w.start}" if w.end == w.start + 1 else f"steps [{w.start}, {w.end})"
            lines.append(
                f"  at least {d.bound.must_leave} B must leave {where}, the only overloaded window "
                "(the excess plus the alignment padding of the requests there), plus any "
                "bank-separation margin"
            )
        else:
            lines.append(
                f"  {len(windows)} overloaded windows: each must lose its own 'must leave' "
                "bytes (the excess there plus the alignment padding of the requests there), "
                "plus any bank-separation margin; trimming only the worst fails at the next"
            )
        lines += ["  " + line for line in window_lines(windows, d.bound.available)]
        return lines
    if d.verdict == Verdict.INFEASIBLE:
        lines = [
            "infeasible: no placement exists, although no storage bound shows it",
            f"  proof: {_proof(d.route)}",
            f"  {avail}",
        ]
        p = d.pieces
        if p is not None:
            union = common.spans_text(p.union, "no stretch of memory")
            lines.append(
                f"  at step {p.step}: {p.demand} B live may use only {union} = {p.usable} B, "
                f"{p.excess} B short"
            )
        if d.choice is not None:
            lines.append(f"  {d.choice.text}")
        if d.subset:
            kind = "an irreducible subset" if d.irreducible else "an infeasible subset"
            lines.append(f"  these cannot be placed together ({kind}): " + ", ".join(d.subset))
        return lines
    searched = f" (search: {d.search_status})" if d.search_status else ""
    lines = [f"undetermined: no strategy fits and no bound proves a deficit{searched}"]
    if d.cut:
        lines = ["undetermined: the time limit ran out before a strategy or the search decided"]
    c, b = d.closest, d.bracket
    if c is not None and b is not None:
        lines.append(f"  {closest_text(b.top, c.overflow, c.strategy)}")
        lines.append(f"  {bracket_text(b)}")
    lines.append(f"  {avail}")
    if output:
        lines.append(f"  no placement within the memory: {output} not written")
    return lines


def _proof(route: str | None) -> str:
    """How the route that proved it says so (the registry's words)."""
    from tilefit.search.routes import proof_says

    return "the search was exhausted" if route is None else proof_says(route)


def closest_text(top: int, overflow: int, strategy: str) -> str:
    """The closest placement found, in one line, in memory tops (one scale for every
    number the undetermined answer gives)."""
    return (
        f"closest placement found: with the memory's top raised by {overflow} B, from "
        f"{top} to {top + overflow} B, every request is placed ({strategy}; checked there)"
    )


def bracket_text(b: Bracket) -> str:
    """Where the least memory top lies, in one line."""
    return (
        f"the least memory top that fits lies in [{b.lower}, {b.upper}] B "
        f"(width {b.width} B, {b.share(b.width):.2%} of available): no placement ends below "
        f"{b.lower} (the live peak with its alignment padding), the closest ends at {b.upper}"
    )


def _peak_lines(d: Diagnosis) -> list[str]:
    lines = [
        f"at the peak (step {d.bound.peak_step}): {counted(len(d.bound.contributors), 'request')}, "
        f"{d.bound.lower_bound} B"
    ]
    for cls, total in d.bound.class_totals:
        members = [c for c in d.bound.contributors if c.cls == cls]
        lines.append(f"  {cls}: {total} B in {len(members)}")
        rows = [(c.id, f"{c.size} B", c.label or "-") for c in members[:_TOP]]
        lines += common.table(rows, indent="    ")
        if len(members) > _TOP:
            lines.append(f"    ... {len(members) - _TOP} more")
    failed = d.production_failed_id
    if failed is not None:
        named = set(d.production_failed_members)
        share = sum(c.size for c in d.bound.contributors if c.id in named)
        where = (
            f"live at the peak, {share} B of its {d.bound.lower_bound} B"
            if share
            else "NOT live at the peak"
        )
        largest = ", ".join(f"{c.id} ({c.size} B)" for c in d.bound.contributors[:3])
        # Without an observed failure there may be no production history (a MiniMalloc
        # CSV): the name comes from the replay alone.
        source = "the production error" if d.reproduced is not None else "the replay's failure"
        lines.append(f"{source} names {failed}: {where}; the largest there: {largest}")
    return lines
