"""Memory of the exact search: peak RSS and the kernel's arrays on 1,000 to 10,000 units.

Run from the repository root:

    .venv/bin/python benchmarks/search_memory.py [--sizes 1000,4000,10000] [--node-limit N]

Two kinds of capture per size, both deterministic from a seed and feasible
with slack, so the search ends quickly: *unconstrained* (random lifetimes and
sizes, one range, capacity 10% above the live peak) and *constrained* (a
``tilefit.generate.synth`` tile: classes, alignment, sequences, interleaving, bank
conflicts; pressure 0.8). Each search runs in a fresh subprocess, so each
peak RSS (``ru_maxrss`` of that process) is its own. Printed per capture: the
search's status, nodes and seconds (numba compiled and cached beforehand, not
counted), peak RSS, RSS before the search (Python, numpy, numba, the loaded
kernel, the capture), and the largest bytes that the kernel's State and Tables arrays reached in
any one run, with the largest array of each.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from typing import Any

from tilefit.generate.synth import Recipe, make_tile
from tilefit.model.capture import Capture, Memory, Range, Request

SEED = 1
MB = 1 << 20


def unconstrained(units: int, seed: int = SEED) -> Capture:
    """Random lifetimes (a few long ones) and sizes; capacity 10% above the live peak."""
    rng = random.Random(seed)
    horizon = max(units // 4, 8)
    requests = []
    for k in range(units):
        if rng.random() < 0.01:  # long-lived: weights, outputs
            start = rng.randrange(horizon // 2)
            end = rng.randrange(start + horizon // 4, horizon + 1)
        else:
            start = rng.randrange(horizon)
            end = min(horizon, start + 1 + int(rng.expovariate(1 / 6)))
        requests.append(Request(f"r{k}", 8 * rng.randint(1, 128), start, end))
    live = [0] * (horizon + 1)
    for r in requests:
        for t in range(r.start, r.end):
            live[t] += r.size
    capacity = max(live) * 11 // 10
    return Capture(
        f"random-{units}", horizon, Memory(capacity, (Range(0, capacity),)), tuple(requests)
    )


def constrained(units: int, seed: int = SEED) -> Capture:
    """A synthetic IPU-like tile of about ``units`` units (20 per layer), pressure 0.8."""
    layers = max(units // 20, 1)
    # A layer's weights are one sequence (one unit) of 2-6 requests: ask for about 3 more.
    recipe = Recipe(pressure=0.8, requests=units + 3 * layers, layers=layers, seed=seed)
    return make_tile(recipe, name=f"synth-{units}")


CHILD = """
import json, resource, sys, time
sys.path.insert(0, {bench!r})
import numpy as np
from search_memory import constrained, unconstrained
from tilefit.search import exact_search
from tilefit.search.exact import solve as exact_solve
from tilefit.search.kernel.driver import Run
from tilefit.model.units import units

def arrays(group, prefix=""):
    for name, value in zip(group._fields, group):
        if isinstance(value, np.ndarray):
            yield prefix + name, value.nbytes
        elif isinstance(value, tuple):
            yield from arrays(value, prefix + name + ".")

peak = {{"state": 0, "tables": 0, "state_top": "", "tables_top": ""}}

class Measured(Run):
    def advance(self, *args):
        status = super().advance(*args)
        for kind, group in (("state", self.state), ("tables", self.tables)):
            sizes = dict(arrays(group))
            total = sum(sizes.values())
            if total > peak[kind]:
                top = max(sizes, key=sizes.get)
                peak[kind] = total
                peak[kind + "_top"] = f"{{top}} {{sizes[top] / 2**20:.1f}}"
        return status

solve(unconstrained(20), 60)  # loads the compiled kernel: counted in "before"
exact_solve.Run = Measured
capture = {kind}({units})
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.monotonic()
result = exact_search(Problem(capture), Deadline.start({time_limit}), node_limit={node_limit})
seconds = time.monotonic() - started
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps(dict(peak, units=len(units(capture)), status=result.status,
    nodes=result.nodes, seconds=seconds, rss=rss, before=before)))
"""


def child(kind: str, units: int, time_limit: float, node_limit: int | None) -> dict[str, Any]:
    code = CHILD.format(
        bench=sys.path[0], kind=kind, units=units, time_limit=time_limit, node_limit=node_limit
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{kind} {units}: the child failed\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,4000,10000", help="comma-separated unit counts")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per search")
    parser.add_argument("--node-limit", type=int, default=None, help="nodes per search")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    started = time.monotonic()
    child("unconstrained", 20, 60.0, None)  # numba compiles and caches the kernel once
    print(f"kernel ready in {time.monotonic() - started:.1f} s (not counted below)")
    print()
    print(
        "capture              units  status      nodes  seconds  peak RSS  before"
        "     State  largest State array       Tables  largest Tables array"
    )
    for kind in ("unconstrained", "constrained"):
        for size in sizes:
            r = child(kind, size, args.time_limit, args.node_limit)
            print(
                f"{kind + ' ' + str(size):<19} {r['units']:>6}  {r['status']:<8} {r['nodes']:>8}"
                f"  {r['seconds']:>7.2f}  {r['rss'] / 1024:>5.0f} MB  {r['before'] / 1024:>3.0f} MB"
                f"  {r['state'] / MB:>6.1f} MB  {r['state_top'] + ' MB':<20}"
                f"  {r['tables'] / MB:>5.1f} MB  {r['tables_top']} MB"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
