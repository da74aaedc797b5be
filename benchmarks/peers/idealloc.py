"""idealloc (Lamprakos et al.), built by ``build_idealloc.sh``: one run of its algorithm.

idealloc has no capacity and no time limit: it boxes the buffers, places them and tries
``max_lives`` times to beat its bootstrap best-fit. It proves nothing; its peak is what
its placement reaches. It reads numeric ids only, so the trace is given to it with the
row numbers as ids and the offsets mapped back. A run that has not ended at the limit is
stopped; a run that panics (idealloc asserts on some inputs) is said with its message.
"""

from __future__ import annotations

import csv
import io
import subprocess
import tempfile
import time
from pathlib import Path

from peers.traces import Answer, Trace, offsets_from_csv, refereed

ROOT = Path(__file__).resolve().parents[2]
BINARY = ROOT / ".peers" / "bin" / "idealloc_offsets"
MAX_LIVES = 1
"""idealloc's own default."""


def run_idealloc(trace: Trace, limit: float, binary: Path = BINARY) -> Answer:
    if not binary.is_file():
        return Answer(
            "idealloc", None, 0.0, note="not built: bash benchmarks/peers/build_idealloc.sh"
        )
    ids = [r.id for r in trace.capture.requests]
    with tempfile.TemporaryDirectory(prefix="idealloc-") as folder:
        source, output = Path(folder) / "trace.csv", Path(folder) / "offsets.csv"
        source.write_text(_numbered_csv(trace), encoding="utf-8")
        began = time.monotonic()
        try:
            done = subprocess.run(
                [str(binary), str(source), str(output), str(MAX_LIVES)],
                capture_output=True,
                text=True,
                timeout=limit,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return Answer("idealloc", None, limit, note=f"no answer in {limit:g} s")
        seconds = time.monotonic() - began
        if done.returncode != 0:
            return Answer("idealloc", None, seconds, note=f"failed: {_panic(done.stderr)}")
        by_row = offsets_from_csv(output.read_text(encoding="utf-8"))
    offsets = {ids[int(row)]: offset for row, offset in by_row.items()}
    return refereed(trace, "idealloc", offsets, seconds)


def _numbered_csv(trace: Trace) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "lower", "upper", "size"])
    for k, r in enumerate(trace.capture.requests):
        writer.writerow([k, r.start, r.end, r.size])
    return out.getvalue()


def _panic(stderr: str) -> str:
    """idealloc's panic message (the line after "panicked at"), else its last line."""
    lines = stderr.strip().splitlines() or ["no output"]
    for k, line in enumerate(lines[:-1]):
        if "panicked at" in line:
            return lines[k + 1].strip()[:100]
    return lines[-1].strip()[:100]
