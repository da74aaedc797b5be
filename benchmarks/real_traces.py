"""Real traces side by side: tilefit's least peak beside its peers' (issue 37, item 5).

Run from the repository root (after `pip install -e '.[test,bench]'` and the peers' build
scripts, see benchmarks/README.md):

    .venv/bin/python benchmarks/real_traces.py                    # T = 120 s: about 2 hours
    .venv/bin/python benchmarks/real_traces.py --time-limit 20    # the quick run
    .venv/bin/python benchmarks/real_traces.py --traces resnet50 G_1 --peers minimalloc bfd
    .venv/bin/python benchmarks/real_traces.py --json out/real_traces.json

Every MiniMalloc CSV of ../shared/traces/ next to the repository (without that folder the
benchmark says so and exits 0): its buffers and live bound (the most bytes live at one
step, below which no placement exists), then each solver's least peak, how far above the
bound, the seconds, whether the peak is proven least, and whether tilefit's referee
(`tilefit.verdicts.check`) accepts the placement. The solvers, one after another:

- tilefit as a user runs it: `python -m tilefit solve TRACE --capacity N --minimize
  --time-limit T --json` in a fresh process (N the sum of all sizes: a memory where
  stacking fits, no hint of the peak), the wall clock around the whole process;
- MiniMalloc's command line (`benchmarks/peers/build_minimalloc.sh`), the least peak
  probed from the live bound within T (`benchmarks/peers/minimalloc.py`);
- idealloc (`benchmarks/peers/build_idealloc.sh`), one run of its algorithm, stopped at T;
- omnimalloc's allocators (the `bench` extra), each in its own process with T, the best;
- best-fit-decreasing in numpy (`benchmarks/peers/bfd.py`).

A peer not built or not installed is said in its row. The last lines say where tilefit
loses: no valid placement, a peak above the best peer's, not at the bound where a peer
is, slower than MiniMalloc to the proven bound, or more than 0.5 s past its limit.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from peers.bfd import best_fit_decreasing
from peers.idealloc import run_idealloc
from peers.minimalloc import least_peak
from peers.omni import best_allocator
from peers.tilefit_run import run_tilefit
from peers.traces import Answer, Trace, read_trace, refereed

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "traces"
OVERRUN = 0.5
"""How far past its limit tilefit's whole process may end (issue 37, item 1)."""


def _bfd(trace: Trace, limit: float) -> Answer:
    began = time.monotonic()
    offsets = best_fit_decreasing(trace.capture)
    return refereed(trace, "best-fit-decr.", offsets, time.monotonic() - began)


PEERS: dict[str, Callable[[Trace, float], Answer]] = {
    "minimalloc": least_peak,
    "idealloc": run_idealloc,
    "omnimalloc": best_allocator,
    "bfd": _bfd,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per solver")
    parser.add_argument("--traces", nargs="+", default=[], help="trace names (default: all)")
    parser.add_argument(
        "--peers", nargs="+", default=list(PEERS), choices=list(PEERS), help="peers to run"
    )
    parser.add_argument("--json", type=Path, help="also write every answer to this JSON file")
    args = parser.parse_args()
    if not SHARED.is_dir():
        print(f"skipped: {SHARED} not found (the shared real traces are not here)")
        return 0
    paths = sorted(SHARED.glob("*.csv"), key=lambda p: p.stat().st_size)
    unknown = set(args.traces) - {p.stem for p in paths}
    if unknown:
        parser.error(f"--traces: not in {SHARED}: {', '.join(sorted(unknown))}")
    paths = [p for p in paths if not args.traces or p.stem in args.traces]
    # A warm install, as the README's install command leaves it: not counted below.
    subprocess.run([sys.executable, "-m", "tilefit", "compile"], check=True, capture_output=True)
    print(_preamble(args.time_limit))
    print()
    print(_header())
    records = []
    for path in paths:
        trace = read_trace(path)
        answers = [run_tilefit(trace, args.time_limit)]
        answers += [PEERS[name](trace, args.time_limit) for name in args.peers]
        for k, answer in enumerate(answers):
            print(_row(trace, answer, first=k == 0), flush=True)
        records.append((trace, answers))
    print(f"load average at the end: {_load()}")
    print()
    for line in losses(records, args.time_limit):
        print(line)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(_as_json(records, args.time_limit), indent=1) + "\n")
    return 0


def losses(records: list[tuple[Trace, list[Answer]]], limit: float) -> list[str]:
    """One line per way tilefit loses on a trace; one line saying so when it loses nowhere."""
    lines: list[str] = []
    for trace, answers in records:
        ours, peers = answers[0], [a for a in answers[1:] if a.valid and a.peak is not None]
        said = f"{trace.name}: tilefit"
        if ours.peak is None or not ours.valid:
            lines.append(f"{said} has no valid placement ({ours.note or 'referee rejects it'})")
            continue
        if peers:
            best = min(peers, key=lambda a: (a.peak, a.seconds))  # type: ignore[arg-type, return-value]
            assert best.peak is not None
            where = f"{best.solver}{_named(best)}, {best.seconds:.1f} s"
            if ours.peak > best.peak and best.peak == trace.bound:
                lines.append(
                    f"{said} {_excess(ours.peak, trace.bound)}: not at the bound, where a "
                    f"peer is ({where})"
                )
            elif ours.peak > best.peak:
                lines.append(
                    f"{said} {_excess(ours.peak, best.peak)} above the best peer ({where})"
                )
        mm = next((a for a in peers if a.solver == "MiniMalloc" and a.proven), None)
        if mm is not None and mm.peak == trace.bound and ours.seconds > mm.seconds:
            state = "proves it" if ours.proven and ours.peak == trace.bound else "does not prove it"
            lines.append(
                f"{said} {state} in {ours.seconds:.1f} s; MiniMalloc proves the bound in "
                f"{mm.seconds:.1f} s"
            )
        if ours.seconds > limit + OVERRUN:
            lines.append(f"{said} ends {ours.seconds - limit:.1f} s past its limit of {limit:g} s")
    return lines or ["tilefit loses nowhere: at or below every peer, within its limit"]


def _excess(peak: int, bound: int) -> str:
    return f"{100 * (peak - bound) / bound:+.4f}%"


def _named(answer: Answer) -> str:
    return f" {answer.note}" if answer.solver == "omnimalloc" and answer.valid else ""


def _header() -> str:
    columns = ("trace", "buffers", "live bound", "solver", "peak", "over bound", "seconds")
    widths = (16, 7, 14, 14, 14, 11, 8)
    cells = "  ".join(
        f"{c:>{w}}" if k in (1, 2, 4, 5, 6) else f"{c:<{w}}"
        for k, (c, w) in enumerate(zip(columns, widths, strict=True))
    )
    return f"{cells}  proven  referee  note"


def _row(trace: Trace, answer: Answer, first: bool) -> str:
    name = trace.name if first else ""
    buffers = f"{len(trace.capture.requests):,}" if first else ""
    bound = f"{trace.bound:,}" if first else ""
    peak = f"{answer.peak:,}" if answer.peak is not None else "-"
    over = _excess(answer.peak, trace.bound) if answer.peak is not None else "-"
    proven = "yes" if answer.proven else "-"
    referee = {True: "valid", False: "INVALID", None: "-"}[answer.valid]
    return (
        f"{name:<16}  {buffers:>7}  {bound:>14}  {answer.solver:<14}  {peak:>14}  {over:>11}  "
        f"{answer.seconds:>8.2f}  {proven:<6}  {referee:<7}  {answer.note}"
    ).rstrip()


def _preamble(limit: float) -> str:
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return (
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit or '?'}; "
        f"time limit {limit:g} s per solver; {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; load average at the start: {_load()}"
    )


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _as_json(records: list[tuple[Trace, list[Answer]]], limit: float) -> dict[str, object]:
    return {
        "time_limit": limit,
        "traces": [
            {
                "trace": trace.name,
                "buffers": len(trace.capture.requests),
                "live_bound": trace.bound,
                "answers": [asdict(a) for a in answers],
            }
            for trace, answers in records
        ],
        "losses": losses(records, limit),
    }


if __name__ == "__main__":
    sys.exit(main())
