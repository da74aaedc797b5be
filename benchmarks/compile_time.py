"""How long `tilefit compile` takes on an empty cache, and each entry alone (issue 48, item 2).

Run from the repository root:

    .venv/bin/python benchmarks/compile_time.py [--runs 2]

Each run is a fresh process with ``NUMBA_CACHE_DIR`` set to a new empty folder: first
``tilefit compile`` as a user runs it (the annealing loop in a forked process beside
the exact kernel), then each compiled entry point alone (the exact kernel, the
annealing loop, the engine's loop for uniform captures). Per line: the least CPU time
(user + system of the process and its children, which a busy machine inflates less
than the wall) and the least wall time over the runs. The machine's load average is
printed first: a figure taken under load says so. Target: `tilefit compile` under 10 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

ALONE = {
    "exact kernel": "_exact_once",
    "annealing loop": "_annealing_once",
    "engine's uniform loop": "_uniform_once",
}


def measure(command: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of ``command`` on an empty numba cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        subprocess.run(command, env=env, check=True, capture_output=True)
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2, help="runs of each (the least counts)")
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    lines = {"tilefit compile": [sys.executable, "-m", "tilefit", "compile"]}
    for name, function in ALONE.items():
        code = f"from tilefit.search import compiling; compiling.{function}()"
        lines[f"  {name} alone"] = [sys.executable, "-c", code]
    print(f"{'':28} {'CPU s':>7} {'wall s':>7}")
    for name, command in lines.items():
        runs = [measure(command) for _ in range(args.runs)]
        cpu = min(c for c, _ in runs)
        wall = min(w for _, w in runs)
        print(f"{name:28} {cpu:7.1f} {wall:7.1f}", flush=True)


if __name__ == "__main__":
    main()
