"""idealloc (Lamprakos et al.), built by ``build_idealloc.sh``: one run of its algorithm.

idealloc has no capacity and no time limit: it boxes the buffers, places them and tries
``max_lives`` times to beat its bootstrap best-fit. It proves nothing; its peak is what
its placement reaches. It reads numeric ids only, so the trace is given to it with the
row numbers as ids and the offsets mapped back.

It first reads the trace as the trace means it (``ex``: a buffer is not live at either
end, which is ``[lower, upper)`` in steps). On some traces that run panics or does not
end; then it is run again as idealloc's own benchmarks read IREE's files (``in``: both
ends live, and its IREE reader re-times the events), said in the note. That reading is
not the trace's, so its placement may break the trace's rules: the referee says so (on
iree_mobilebert it does). Each run is stopped at the limit.
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
    with tempfile.TemporaryDirectory(prefix="idealloc-") as folder:
        source = Path(folder) / "trace.csv"
        source.write_text(_numbered_csv(trace), encoding="utf-8")
        exact = _run(binary, source, "ex", limit)
        if not isinstance(exact, str):
            return _answer(trace, *exact, note="")
        longer = _run(binary, source, "in", limit)
        if isinstance(longer, str):
            return Answer("idealloc", None, limit, note=f"{exact}; ends inclusive: {longer}")
        return _answer(trace, *longer, note=f"lifetimes read 1 step longer ({exact})")


def _answer(trace: Trace, seconds: float, by_row: dict[str, int], note: str) -> Answer:
    ids = [r.id for r in trace.capture.requests]
    offsets = {ids[int(row)]: offset for row, offset in by_row.items()}
    return refereed(trace, "idealloc", offsets, seconds, note=note)


def _run(binary: Path, source: Path, ends: str, limit: float) -> tuple[float, dict[str, int]] | str:
    """Seconds and offsets by row, or why there are none."""
    output = source.with_name(f"offsets.{ends}.csv")
    began = time.monotonic()
    try:
        done = subprocess.run(
            [str(binary), str(source), str(output), str(MAX_LIVES), ends],
            capture_output=True,
            text=True,
            timeout=limit,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"no answer in {limit:g} s"
    seconds = time.monotonic() - began
    if done.returncode != 0:
        return f"panicked: {_panic(done.stderr)}"
    return seconds, offsets_from_csv(output.read_text(encoding="utf-8"))


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
