"""Each stage of a command on a million buffers, timed alone (issue 48, item 3).

Run from the repository root (after `pip install -e '.[test,bench]'` and `tilefit compile`):

    .venv/bin/python benchmarks/million_stages.py                  # 1,000,000 buffers
    .venv/bin/python benchmarks/million_stages.py --buffers 100000

The buffers are `time_limit.py`'s made-up trace (2% alive throughout, most for a few
steps), written as a MiniMalloc CSV in a temporary folder. The stages are those a
`solve` goes through: reading the CSV, the bounds (`bound`'s report), preparing the
units, one greedy pass (`size/first-fit`, after an untimed pass loads the compiled
loop), the referee (`check`) on its placement and the placement as JSON. The memory
is twice the live peak, so that the pass fits and the referee reads a whole placement.
Each line gives CPU seconds (this process) and wall seconds, with the load before and
after: the machine may be shared, and CPU time is the steadier figure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).parent))

from time_limit import _made_up

from tilefit.bounds.deficit import bound
from tilefit.engine.attempt import Prepared, run_strategy
from tilefit.formats.load import read_capture
from tilefit.model.capture import Memory, Range
from tilefit.model.placement import Placement
from tilefit.output.jsonout import placement_json
from tilefit.verdicts.check import check

T = TypeVar("T")


def timed(label: str, work: Callable[[], T]) -> T:
    cpu, wall = time.process_time(), time.perf_counter()
    out = work()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"{label:26s} {cpu:6.2f} s CPU {wall:6.2f} s wall", flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--buffers", type=int, default=1_000_000, help="made-up buffers")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"made{args.buffers}.{1 << 61}.csv"
        path.write_text(_made_up(args.buffers), encoding="utf-8")
        print(f"{args.buffers:,} buffers, load {os.getloadavg()[0]:.2f}")
        capture = timed("read the CSV", lambda: read_capture(path))
    report = timed("bounds (bound's report)", lambda: bound(capture))
    room = 2 * report.lower_bound
    capture = replace(capture, memory=Memory(size=room, ranges=(Range(0, room),)))
    prepared = timed("prepare the units", lambda: Prepared.of(capture))
    run_strategy(prepared, "lifetime/first-fit")  # loads the compiled loop, untimed
    attempt = timed("pass size/first-fit", lambda: run_strategy(prepared, "size/first-fit"))
    placement = Placement(capture.name, attempt.offsets)
    verdict = timed("referee (check)", lambda: check(capture, placement))
    timed("placement as JSON", lambda: json.dumps(placement_json(placement)))
    top = attempt.peak_address
    print(f"live bound {report.lower_bound:,} B, pass top {top:,} B, valid {verdict.valid}")
    print(f"load {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
