"""How long a call of the ``tilefit`` command takes, the whole process (issue 48, item 1).

Compiler integrations call tilefit once per model or per program, so start-up is paid on
every call. Run with::

    .venv/bin/python benchmarks/startup.py [--runs 15] [--traces-dir ../shared/traces]

Each command runs ``--runs`` times as a fresh process of the installed console script;
the table gives the least and the median wall time, the least CPU time (user + system,
which a busy machine inflates less than the wall) and the target. The commands on the
shared real traces (``solve --minimize`` in a memory where stacking fits, as
``benchmarks/real_traces.py`` asks) are skipped, with the reason said, when
``../shared/traces`` is absent; MiniMalloc's whole process on the same traces (its
probe at the live bound, which proves the least peak on each of them) is measured where
``benchmarks/peers/build_minimalloc.sh`` has built it.

Targets (a quiet machine): ``--version`` under 50 ms, ``bound examples/0-0.json`` under
100 ms, ``diagnose examples/0-0.json`` under 150 ms, ``solve --minimize`` under 150 ms on
every shared trace below 1,000 buffers and faster than MiniMalloc's whole process on
resnet50, tiny_bert and G_1. The machine's load average is printed first: a figure taken
under load says so.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TILEFIT = Path(sys.executable).with_name("tilefit")
MINIMALLOC = ROOT / ".peers" / "bin" / "minimalloc"
SMALL_TRACES = ("iree_mobilenet", "iree_mobilebert", "G_1", "resnet50", "tiny_bert")
BEAT_MINIMALLOC = ("G_1", "resnet50", "tiny_bert")


@dataclass(frozen=True)
class Timing:
    least: float
    median: float
    cpu: float  # the least user + system seconds of one run
    code: int


# Python's bytecode cache is written as it would be after an install: a session that set
# PYTHONDONTWRITEBYTECODE would otherwise compile every module from source on every call.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(argv: list[str], runs: int) -> Timing:
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)  # warm
    walls, cpus, code = [], [], 0
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
        walls.append(time.perf_counter() - began)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        code = done.returncode
    return Timing(min(walls), statistics.median(walls), min(cpus), code)


def live_bound(trace: Path) -> int:
    """The most bytes live at one step (MiniMalloc's probe capacity)."""
    events: dict[int, int] = {}
    for line in trace.read_text().splitlines()[1:]:
        fields = line.split(",")
        lower, upper, size = int(fields[1]), int(fields[2]), int(fields[3])
        events[lower] = events.get(lower, 0) + size
        events[upper] = events.get(upper, 0) - size
    live = peak = 0
    for step in sorted(events):
        live += events[step]
        peak = max(peak, live)
    return peak


def plain(trace: Path, folder: Path) -> Path:
    """The trace as MiniMalloc reads it: ``id,lower,upper,size`` (IREE's offsets dropped)."""
    rows = [",".join(line.split(",")[:4]) for line in trace.read_text().splitlines()]
    out = folder / trace.name
    out.write_text("\n".join(rows) + "\n")
    return out


def rows(args: argparse.Namespace) -> list[tuple[str, str, Timing | None, str]]:
    tilefit = str(TILEFIT)
    found: list[tuple[str, str, Timing | None, str]] = [
        ("tilefit --version", "< 0.050", timed([tilefit, "--version"], args.runs), ""),
        (
            "tilefit bound examples/0-0.json",
            "< 0.100",
            timed([tilefit, "bound", str(ROOT / "examples/0-0.json")], args.runs),
            "",
        ),
        (
            "tilefit diagnose examples/0-0.json",
            "< 0.150",
            timed([tilefit, "diagnose", str(ROOT / "examples/0-0.json")], args.runs),
            "",
        ),
    ]
    traces = Path(args.traces_dir)
    if not traces.is_dir():
        found.append(("solve --minimize on the shared traces", "", None, f"{traces} absent"))
        return found
    with tempfile.TemporaryDirectory(prefix="startup-") as folder:
        for name in SMALL_TRACES:
            trace = traces / f"{name}.csv"
            sizes = sum(int(line.split(",")[3]) for line in trace.read_text().splitlines()[1:])
            argv = [tilefit, "solve", str(trace), "--capacity", str(sizes), "--minimize"]
            ours = timed(argv, args.runs)
            target = "< 0.150" if len(trace.read_text().splitlines()) - 1 < 1000 else ""
            theirs = None
            if MINIMALLOC.is_file():
                probe = [
                    str(MINIMALLOC),
                    f"--capacity={live_bound(trace)}",
                    f"--input={plain(trace, Path(folder))}",
                    f"--output={Path(folder) / 'out.csv'}",
                ]
                theirs = timed(probe, args.runs)
            if name in BEAT_MINIMALLOC and theirs is not None:
                target = f"< {theirs.least:.3f} (MiniMalloc)"
            found.append((f"tilefit solve {name} --minimize", target, ours, ""))
            note = "" if theirs else "not built: bash benchmarks/peers/build_minimalloc.sh"
            found.append((f"MiniMalloc {name} at the live bound", "", theirs, note))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--traces-dir", default=str(ROOT.parent / "shared" / "traces"))
    args = parser.parse_args()
    if not TILEFIT.is_file():
        sys.exit(f"startup.py: {TILEFIT} not found: run it with the venv's python")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores, {args.runs} runs each")
    print(f"{'command':44} {'least s':>8} {'median s':>9} {'cpu s':>7}  target")
    for what, target, timing, note in rows(args):
        if timing is None:
            print(f"{what:44} {'-':>8} {'-':>9} {'-':>7}  {note}")
            continue
        failed = f"  (exit {timing.code})" if timing.code not in (0, 1) else ""
        print(
            f"{what:44} {timing.least:8.3f} {timing.median:9.3f} {timing.cpu:7.3f}  "
            f"{target}{failed}{note}"
        )


if __name__ == "__main__":
    main()
