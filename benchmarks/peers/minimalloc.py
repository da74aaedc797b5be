"""MiniMalloc's command line (built by ``build_minimalloc.sh``) searching for the least peak.

MiniMalloc answers one question: does the trace fit a capacity? The least peak is found
by probing capacities, each probe a fresh process with a share of the limit:

1. the live bound, with a quarter of the limit (where MiniMalloc is fastest: a solution
   there is proven least);
2. if that is not solved, the sum of all sizes, with the rest of the limit (a first
   placement: on bert_base MiniMalloc needs 14 s for it);
3. then bisection between the lowest capacity not yet ruled out and the best peak
   found less one byte, each probe with an eighth of the limit (or what is left), each
   solution lowering the best peak to the height it reaches.

A probe answers solved (its output CSV holds the offsets), NOT_FOUND (no placement at
that capacity: proven) or DEADLINE_EXCEEDED (unknown; the bisection moves on above it,
unproven). The peak is proven least when it is the live bound or when a probe one byte
below it was NOT_FOUND.
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from peers.traces import Answer, Trace, offsets_from_csv, plain_csv, refereed

ROOT = Path(__file__).resolve().parents[2]
BINARY = ROOT / ".peers" / "bin" / "minimalloc"
FIRST_SHARE = 0.25
"""The share of the limit the probe at the live bound gets."""
PROBE_SHARE = 0.125
"""The share every later probe gets (or what is left, when less)."""


@dataclass(frozen=True)
class Probe:
    capacity: int
    status: str  # "solved", "infeasible" or "timeout"
    offsets: dict[str, int] | None


def least_peak(trace: Trace, limit: float, binary: Path = BINARY) -> Answer:
    if not binary.is_file():
        return Answer(
            "MiniMalloc", None, 0.0, note="not built: bash benchmarks/peers/build_minimalloc.sh"
        )
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="minimalloc-") as folder:
        source = Path(folder) / "trace.csv"
        source.write_text(plain_csv(trace.capture), encoding="utf-8")

        def probe(capacity: int, share: float) -> Probe:
            left = limit - (time.monotonic() - began)
            return fits_at(binary, source, capacity, min(left, share * limit))

        best: dict[str, int] | None = None
        best_peak = trace.capacity + 1
        lowest = trace.bound  # the lowest capacity not ruled out
        proven_lowest = trace.bound  # the lowest not proven infeasible
        for capacity, share in ((trace.bound, FIRST_SHARE), (trace.capacity, 1.0)):
            found = probe(capacity, share)
            if found.offsets is not None:
                best, best_peak = found.offsets, _peak(trace, found.offsets)
                break
            if capacity == trace.bound:
                lowest = trace.bound + 1
                proven_lowest = lowest if found.status == "infeasible" else proven_lowest
        while best is not None and lowest < best_peak and time.monotonic() - began < limit:
            middle = (lowest + best_peak - 1) // 2
            found = probe(middle, PROBE_SHARE)
            if found.offsets is not None:
                best, best_peak = found.offsets, _peak(trace, found.offsets)
            else:
                lowest = middle + 1
                if found.status == "infeasible":  # and so is every capacity below it
                    proven_lowest = max(proven_lowest, lowest)
    seconds = time.monotonic() - began
    if best is None:
        return Answer("MiniMalloc", None, seconds, note="no probe solved within the limit")
    proven = best_peak == trace.bound or proven_lowest >= best_peak
    return refereed(trace, "MiniMalloc", best, seconds, proven)


def _peak(trace: Trace, offsets: dict[str, int]) -> int:
    sizes = trace.capture.request_by_id
    return max(o + sizes[i].size for i, o in offsets.items())


def fits_at(binary: Path, source: Path, capacity: int, seconds: float) -> Probe:
    """One run of MiniMalloc at ``capacity``: solved (with its offsets), infeasible or timeout."""
    if seconds <= 0:
        return Probe(capacity, "timeout", None)
    output = source.with_name(f"out.{capacity}.csv")
    command = [
        str(binary),
        f"--input={source}",
        f"--output={output}",
        f"--capacity={capacity}",
        f"--timeout={seconds:.3f}s",
    ]
    try:
        # MiniMalloc checks its deadline between nodes; the grace covers reading the trace.
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=seconds + 10, check=False
        )
    except subprocess.TimeoutExpired:
        return Probe(capacity, "timeout", None)
    if done.returncode == 0 and output.is_file():
        return Probe(capacity, "solved", offsets_from_csv(output.read_text()))
    if "NOT_FOUND" in done.stderr:
        return Probe(capacity, "infeasible", None)
    if "DEADLINE_EXCEEDED" in done.stderr:
        return Probe(capacity, "timeout", None)
    raise RuntimeError(f"MiniMalloc failed at capacity {capacity}: {done.stderr.strip()[-300:]}")
