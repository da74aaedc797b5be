"""tilefit as a user runs it on a trace: ``python -m tilefit solve TRACE --capacity N
--minimize --time-limit T --json`` in a fresh process, the wall clock around the whole
process. Its peak is the top of the placement it prints; proven when that is the live
bound or its JSON says ``optimal``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import replace

from peers.traces import Answer, Trace, refereed

GRACE = 60.0
"""How long past its limit tilefit may run before the benchmark stops it (and says so)."""


def run_tilefit(trace: Trace, limit: float) -> Answer:
    command = [
        sys.executable,
        "-m",
        "tilefit",
        "solve",
        str(trace.path),
        "--capacity",
        str(trace.capacity),
        "--minimize",
        "--time-limit",
        f"{limit:g}",
        "--json",
    ]
    began = time.monotonic()
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=limit + GRACE, check=False
        )
    except subprocess.TimeoutExpired:
        return Answer("tilefit", None, time.monotonic() - began, note="stopped at limit + 60 s")
    seconds = time.monotonic() - began
    try:
        reply = json.loads(done.stdout)
    except json.JSONDecodeError:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return Answer("tilefit", None, seconds, note=f"exit {done.returncode}: {last[:100]}")
    placement = reply.get("placement")
    if placement is None:
        return Answer("tilefit", None, seconds, note=f"status {reply.get('status')}, no placement")
    offsets = {str(k): int(v) for k, v in placement["offsets"].items()}
    note = f"status {reply.get('status')}" if reply.get("status") != "solved" else ""
    answer = refereed(trace, "tilefit", offsets, seconds, note=note)
    proven = bool(reply.get("optimal")) or answer.peak == trace.bound
    return replace(answer, proven=proven and bool(answer.valid))
