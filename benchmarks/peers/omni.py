"""omnimalloc's allocators (PyPI ``omnimalloc``, the ``bench`` extra), each on the trace in a
child process of its own (``omni_child.py``), stopped at the limit: the best peak among
them, with its name.

The allocators that search (genetic, annealing, hill climbing, tabu, TelaMalloc,
SuperMalloc) are given the limit as their ``timeout``; the greedy ones take none. An
allocator that has not answered at the limit plus a grace (reading the trace, importing)
is stopped and counted as no answer; one that answers more than a second past the limit
is listed but not counted. Of equal peaks the fastest is named. ``naive`` (stacking) and
``minimalloc`` (MiniMalloc's Python binding, not on PyPI; its command line is a peer of its
own) are left out.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from peers.traces import Answer, Trace, plain_csv, refereed

LEFT_OUT = ("naive", "minimalloc")
GRACE = 15.0
LATE = 1.0
"""An allocator that answers more than this past the limit (its deadline is checked
between rounds) is listed in ``tried`` but not counted as the best."""
INSTALL = "pip install 'tilefit[bench]'"
CHILD = Path(__file__).with_name("omni_child.py")


def best_allocator(trace: Trace, limit: float) -> Answer:
    """The best refereed answer among the allocators; its note names the allocator and
    ``tried`` holds every allocator's peak (None: no answer) and seconds."""
    if importlib.util.find_spec("omnimalloc") is None:
        return Answer("omnimalloc", None, 0.0, note=f"not installed ({INSTALL})")
    from omnimalloc import available_allocators

    best: Answer | None = None
    tried: list[tuple[str, int | None, float]] = []
    with tempfile.TemporaryDirectory(prefix="omnimalloc-") as folder:
        source = Path(folder) / "trace.csv"
        source.write_text(plain_csv(trace.capture), encoding="utf-8")
        for name in available_allocators():
            if name in LEFT_OUT:
                continue
            got = _run(name, source, limit)
            if isinstance(got, str):
                tried.append((f"{name} ({got})", None, 0.0))
                continue
            answer = refereed(trace, "omnimalloc", got[1], got[0], note=name)
            tried.append((name, answer.peak if answer.valid else None, answer.seconds))
            in_time = answer.seconds <= limit + LATE
            if answer.valid and in_time and (best is None or _lower(answer, best)):
                best = answer
    if best is None:
        return Answer("omnimalloc", None, 0.0, note="no allocator answered", tried=tuple(tried))
    return replace(best, tried=tuple(tried))


def _lower(answer: Answer, best: Answer) -> bool:
    """A lower peak, or the same sooner."""
    if answer.peak is None or best.peak is None:
        return answer.peak is not None
    return (answer.peak, answer.seconds) < (best.peak, best.seconds)


def _run(name: str, source: Path, limit: float) -> tuple[float, dict[str, int]] | str:
    command = [sys.executable, str(CHILD), name, str(source), str(limit)]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=limit + GRACE, check=False
        )
    except subprocess.TimeoutExpired:
        return f"no answer in {limit + GRACE:g} s"
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or ["no output"]
        return lines[-1][:120]
    reply = json.loads(done.stdout)
    return float(reply["seconds"]), {str(k): int(v) for k, v in reply["offsets"].items()}
