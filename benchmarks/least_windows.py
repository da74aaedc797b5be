"""The least top's lower end on real traces, by windows of steps (issue 49).

Run from the repository root:

    .venv/bin/python benchmarks/least_windows.py                       # every trace, 60 s each
    .venv/bin/python benchmarks/least_windows.py --traces pangu_2.6B --seconds 120 --wide 300

Every MiniMalloc CSV of ../shared/traces/ next to the repository (without that folder the
benchmark says so and exits 0): its live bound, then what ``tilefit.search.proofs.least``
proves above it in ``--seconds`` (the windows grown from the busiest steps, each window's
transients asked of the exact search from the bound up): the bound proven, bytes above the
live bound, the windows asked, the widest settled and the seconds. With ``--wide S``, the
windows around the busiest step are then widened (doubling) and the exact search asked
whether each window's transients fit at the live bound (S seconds each): every window
placed there shows that no window proof at the bound exists that wide.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from peers.traces import read_trace

from tilefit.bounds.top import top_lower_bound
from tilefit.bounds.window import window_of
from tilefit.model.deadline import Deadline
from tilefit.search.blocks import build_model
from tilefit.search.exact.solve import Budget, search_model
from tilefit.search.proofs.least import busiest_steps, transients_capture, window_bound

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "traces"


def _bound_row(path: Path, seconds: float) -> tuple[str, int, int]:
    trace = read_trace(path)
    capture = trace.capture
    live = top_lower_bound(capture)
    found = window_bound(capture, live, capture.memory.size, time.monotonic() + seconds)
    widest = "-"
    if found.refutation is not None:
        w = found.refutation.window
        widest = f"[{w.start},{w.end}) {len(w.transients)} transients"
    print(
        f"{trace.name:<16} {len(capture.requests):>7,} {live:>16,} {found.lower:>16,} "
        f"{found.raised:>12,} {found.windows:>8} {found.seconds:>8.1f}  {widest}",
        flush=True,
    )
    return trace.name, live, found.lower


def _wide(path: Path, seconds: float) -> None:
    capture = read_trace(path).capture
    live = top_lower_bound(capture)
    step = busiest_steps(capture, 1)[0]
    half = 1
    while True:
        start, end = max(0, step - half), min(capture.horizon, step + half + 1)
        window = window_of(capture, start, end)
        began = time.monotonic()
        model = build_model(transients_capture(window, live - window.held))
        status = search_model(model, Budget(Deadline.start(seconds))).status
        took = time.monotonic() - began
        print(
            f"  [{start},{end}) {len(window.transients):>6,} transients at the live bound: "
            f"{status} {took:.1f} s",
            flush=True,
        )
        if status != "solved" or (start, end) == (0, capture.horizon):
            return
        half *= 2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", nargs="*", help="trace names (default: every one)")
    parser.add_argument("--seconds", type=float, default=60.0, help="per trace (default 60)")
    parser.add_argument("--wide", type=float, default=0.0, help="seconds per wide window")
    args = parser.parse_args()
    if not SHARED.is_dir():
        print(f"no traces: {SHARED} is absent", file=sys.stderr)
        return 0
    paths = sorted(SHARED.glob("*.csv"))
    if args.traces:
        paths = [p for p in paths if p.stem in args.traces]
    print(
        f"{'trace':<16} {'buffers':>7} {'live bound':>16} {'proven':>16} {'raised':>12} "
        f"{'windows':>8} {'seconds':>8}  widest refuted"
    )
    for path in paths:
        _bound_row(path, args.seconds)
        if args.wide > 0:
            _wide(path, args.wide)
    return 0


if __name__ == "__main__":
    sys.exit(main())
