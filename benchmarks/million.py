"""A million buffers, whole processes side by side (issue 48, item 3).

Run from the repository root (after `pip install -e '.[test,bench]'`, `tilefit compile`
and, for idealloc, `bash benchmarks/peers/build_idealloc.sh IDEALLOC_SRC`):

    .venv/bin/python benchmarks/million.py                          # 1,000,000 buffers
    .venv/bin/python benchmarks/million.py --time-limit 10 --time-limit 60
    .venv/bin/python benchmarks/million.py --buffers 100000 --time-limit 5 --traces tiled

Three traces of ``--buffers`` buffers, made in a temporary folder: ``made`` (
``time_limit.py``'s made-up trace: 2% alive throughout, most for a few steps),
``training`` (``million_traces.training_graph``: a training step's saved activations
alive until the backward pass frees them in reverse, about 200,000 alive at the turn)
and ``tiled`` (``million_traces.tiled_real``: ``../shared/traces`` end to end, repeated;
skipped, with the reason, when that folder is absent). On each, one after the other:

- tilefit as a user runs it: ``python -m tilefit solve TRACE --capacity SUM --minimize
  --time-limit T --json -o OUT`` (SUM: every size added, a memory where stacking fits,
  no hint of the peak), for each T given (default 10); the placement is read from OUT;
- each of omnimalloc's greedy allocators (``best_fit`` and the ``greedy*`` ones, its
  fastest), each in a process of its own (``peers/omni_child.py``: reading the CSV,
  allocating, printing the offsets);
- idealloc (``peers/idealloc.py``'s binary, one run, the trace's own reading of the
  lifetimes; no second reading here), stopped at ``--peer-limit``.

Every process is measured whole (``peers/measured.py``: wall, CPU of it and its
children, largest resident set); the peers' address space is capped at
``--memory-cap`` GB, so that one that would take the shared machine's memory fails
instead (said in the note). Every placement is judged by tilefit's referee; the top is
given against the live bound (the issue's target: under 10 s, under 1 GB, within 0.01%).
A peer not installed or not built is reported as such. The load is printed before and
after each run: the machine may be shared, and CPU is the steadier figure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from million_traces import tiled_real, training_graph
from peers import idealloc, omni
from peers.measured import Measured, run_measured
from peers.traces import Answer, Trace, read_trace, refereed
from time_limit import _made_up

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "traces"
GRACE = 30.0
"""How long past the limit tilefit may run before it is stopped (and said so)."""


TRACES = ("made", "training", "tiled")


def traces(
    folder: Path, buffers: int, shared: Path, names: list[str]
) -> Iterator[tuple[str, Path | str]]:
    """Each trace's name and file, or the reason it is skipped."""
    made = {
        "made": lambda: _made_up(buffers),
        "training": lambda: training_graph(buffers),
        "tiled": lambda: tiled_real(shared, buffers),
    }
    for name, make in made.items():
        if name not in names:
            continue
        text = make()
        if text is None:
            yield name, f"skipped: no trace in {shared} (the shared real traces are absent)"
            continue
        path = folder / f"{name}{buffers}.csv"
        path.write_text(text, encoding="utf-8")
        yield name, path


def run_tilefit(trace: Trace, limit: float, folder: Path) -> tuple[Answer, Measured]:
    output = folder / "tilefit-placement.json"
    output.unlink(missing_ok=True)
    command = [
        *(sys.executable, "-m", "tilefit", "solve", str(trace.path)),
        *("--capacity", str(trace.capacity), "--minimize", "--time-limit", f"{limit:g}"),
        *("--json", "-o", str(output)),
    ]
    run = run_measured(command, limit + GRACE)
    solver = f"tilefit T={limit:g}"
    if run.returncode is None:
        return Answer(solver, None, run.wall, note=f"stopped at T + {GRACE:g} s"), run
    try:
        status = json.loads(run.stdout).get("status")
    except json.JSONDecodeError:
        last = (run.stderr.strip().splitlines() or ["no output"])[-1]
        return Answer(solver, None, run.wall, note=f"exit {run.returncode}: {last[:90]}"), run
    if not output.is_file():
        return Answer(solver, None, run.wall, note=f"status {status}, no placement"), run
    offsets = json.loads(output.read_text(encoding="utf-8"))["offsets"]
    return refereed(trace, solver, offsets, run.wall, note=f"status {status}"), run


def greedy_allocators() -> list[str] | str:
    """omnimalloc's greedy allocators, or why there are none."""
    import importlib.util

    if importlib.util.find_spec("omnimalloc") is None:
        return f"not installed ({omni.INSTALL})"
    from omnimalloc import available_allocators

    return [n for n in available_allocators() if n == "best_fit" or n.startswith("greedy")]


def run_omni(name: str, trace: Trace, limit: float, cap: int) -> tuple[Answer, Measured]:
    command = [sys.executable, str(omni.CHILD), name, str(trace.path), f"{limit:g}"]
    run = run_measured(command, limit + omni.GRACE, cap)
    if run.returncode != 0:
        return Answer(f"omni {name}", None, run.wall, note=_failure(run)), run
    reply = json.loads(run.stdout)
    offsets = {str(k): int(v) for k, v in reply["offsets"].items()}
    note = f"allocating {reply['seconds']:.2f} s"
    return refereed(trace, f"omni {name}", offsets, run.wall, note=note), run


def run_idealloc(trace: Trace, limit: float, cap: int, folder: Path) -> tuple[Answer, Measured]:
    source, output = folder / "idealloc-trace.csv", folder / "idealloc-offsets.csv"
    source.write_text(idealloc._numbered_csv(trace), encoding="utf-8")
    output.unlink(missing_ok=True)
    command = [str(idealloc.BINARY), str(source), str(output), str(idealloc.MAX_LIVES), "ex"]
    run = run_measured(command, limit, cap)
    if run.returncode != 0:
        return Answer("idealloc", None, run.wall, note=_failure(run)), run
    by_row = idealloc.offsets_from_csv(output.read_text(encoding="utf-8"))
    return idealloc._answer(trace, run.wall, by_row, note=""), run


def _failure(run: Measured) -> str:
    """Why a peer gave no placement: killed at its limit, or its last words."""
    if run.returncode is None:
        return f"no answer in {run.wall:.0f} s"
    lines = run.stderr.strip().splitlines()
    said = [line for line in lines if line.strip() and not line.startswith("note:")]
    panic = [k for k, line in enumerate(said[:-1]) if "panicked at" in line]
    failed = [line for line in said if line.startswith("memory allocation of")]  # Rust's
    last = said[panic[0] + 1] if panic else failed[0] if failed else (said or ["no output"])[-1]
    return f"exit {run.returncode}: {last.strip()[:110]}"


def line(trace: Trace, answer: Answer, run: Measured | None) -> str:
    load = os.getloadavg()[0]
    if run is None:
        return f"  {answer.solver:28} {answer.note}"
    head = f"  {answer.solver:28} {run.wall:7.2f} s {run.cpu:7.2f} s {run.max_rss / 1e9:6.2f} GB"
    if answer.peak is None:
        return f"{head}  {'-':>18} {'-':>10}  {'-':5}  load {load:4.1f}  {answer.note}"
    over = 100 * (answer.peak - trace.bound) / trace.bound
    valid = "valid" if answer.valid else "INVALID"
    return f"{head}  {answer.peak:18,} {over:+9.4f}%  {valid:5}  load {load:4.1f}  {answer.note}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--buffers", type=int, default=1_000_000, help="buffers per trace")
    parser.add_argument(
        "--time-limit", type=float, action="append", help="tilefit's T, seconds (repeatable)"
    )
    parser.add_argument("--peer-limit", type=float, default=120.0, help="a peer's seconds")
    parser.add_argument("--memory-cap", type=float, default=4.0, help="a peer's GB")
    parser.add_argument("--shared", type=Path, default=SHARED, help="the real traces' folder")
    parser.add_argument("--traces", nargs="+", choices=TRACES, default=list(TRACES))
    args = parser.parse_args()
    limits = args.time_limit or [10.0]
    cap = int(args.memory_cap * 1e9)
    allocators = greedy_allocators()
    shown = ", ".join(f"{t:g}" for t in limits)
    print(f"{args.buffers:,} buffers a trace, tilefit T = {shown} s, peers up to")
    print(f"{args.peer_limit:g} s and {args.memory_cap:g} GB; load {os.getloadavg()}")
    print(f"  {'solver':28} {'wall':>9} {'CPU':>9} {'max RSS':>9}  {'top':>18} {'vs bound':>10}")
    with tempfile.TemporaryDirectory(prefix="million-") as name:
        folder = Path(name)
        for label, path in traces(folder, args.buffers, args.shared, args.traces):
            if isinstance(path, str):
                print(f"\n{label}: {path}")
                continue
            trace = read_trace(path)
            print(f"\n{label}: live bound {trace.bound:,} B", flush=True)
            for limit in limits:
                print(line(trace, *run_tilefit(trace, limit, folder)), flush=True)
            if isinstance(allocators, str):
                print(line(trace, Answer("omnimalloc", None, 0.0, note=allocators), None))
            for allocator in [] if isinstance(allocators, str) else allocators:
                answer = run_omni(allocator, trace, args.peer_limit, cap)
                print(line(trace, *answer), flush=True)
            if not idealloc.BINARY.is_file():
                built = "not built: bash benchmarks/peers/build_idealloc.sh IDEALLOC_SRC"
                print(line(trace, Answer("idealloc", None, 0.0, note=built), None))
            else:
                answer = run_idealloc(trace, args.peer_limit, cap, folder)
                print(line(trace, *answer), flush=True)
    print(f"\nload {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
