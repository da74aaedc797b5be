"""How fast the placement engine is, and how it compares with omnimalloc's C++ greedy.

Run with ``.venv/bin/python benchmarks/engine_speed.py`` (``--quick`` leaves out
the 1,000,000-request instance, which takes a few minutes).

1. A synthetic IPU-like tile of about 2,000 units with every constraint kind
   (class-restricted host aperture, interleaved memory, memory elements,
   alignment, weight sequences with per-member lifetimes, conflict edges):
   each of the 16 strategies alone, and the whole experiment matrix.
2. ``size/first-fit`` on unconstrained captures of 10,000, 100,000 and
   1,000,000 requests, side by side with ``omnimalloc``'s greedy-by-size
   allocator (C++ first-fit after a size sort) on the same requests, in one
   run. Requests come in program order (sorted by start); lifetimes are
   1 + an exponential draw of mean 20 steps over a horizon of n steps (about
   20 requests live at a time), sizes uniform in [1, 4096] bytes.

3. With ``--trace CSV`` (a MiniMalloc CSV, e.g. ``../shared/traces/pangu_2.6B.csv``;
   repeatable): each strategy on the real trace in a memory of its live peak, placed
   by the compiled loop (``tilefit.engine.uniform``) and one by one in Python: the
   same placement, and what the loop saves.

Times are wall-clock, best of a few repeats. tilefit's time is
``run_strategy(capture, "size/first-fit")`` from the capture (units, time
index and all); omnimalloc's is ``GreedyBySizeAllocator().allocate(...)`` on
ready-made ``Allocation`` objects.
"""

from __future__ import annotations

import argparse
import math
import platform
import random
import time
from collections.abc import Callable
from typing import TypeVar

import numpy as np
from needs import INSTALL

from tilefit.engine.attempt import Prepared, run_strategy
from tilefit.engine.strategy import STRATEGIES
from tilefit.generate.synth import Recipe, make_tile
from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.verdicts.experiment import experiment

T = TypeVar("T")

SIZES = (10_000, 100_000, 1_000_000)
MEAN_LIFETIME = 20


def best_of(repeats: int, work: Callable[[], T]) -> tuple[float, T]:
    best, result = math.inf, None
    for _ in range(repeats):
        began = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - began)
    assert result is not None
    return best, result


def constrained_tile() -> Capture:
    return make_tile(Recipe(pressure=0.9, requests=2_300, layers=48, seed=1))


def strategies_section() -> None:
    capture = constrained_tile()
    prepared = Prepared.of(capture)
    classes = sorted({r.cls for r in capture.requests})
    print(
        f"{capture.name}: {len(capture.requests):,} requests in {len(prepared.units):,} units; "
        f"{len(capture.sequences)} sequences, {len(capture.conflicts)} conflict edges, "
        f"{sum(r.interleaved for r in capture.requests)} interleaved, "
        f"{sum(r.alignment > 1 for r in capture.requests)} aligned, classes {', '.join(classes)}; "
        f"{len(capture.memory.elements)} memory elements"
    )
    rows = []
    for strategy in STRATEGIES:
        seconds, attempt = best_of(5, lambda s=strategy: run_strategy(capture, s))  # type: ignore[misc]
        rows.append((strategy.name, seconds, attempt.fits))
    width = max(len(name) for name, _, _ in rows)
    for name, seconds, fits in rows:
        print(f"  {name:<{width}}  {seconds * 1000:6.1f} ms  {'fits' if fits else 'fails'}")
    slowest = max(rows, key=lambda row: row[1])
    print(f"slowest single strategy: {slowest[0]}, {slowest[1] * 1000:.1f} ms (target < 50 ms)")
    matrix, _ = best_of(3, lambda: experiment(capture))
    print(f"whole 16-strategy matrix (experiment): {matrix * 1000:.0f} ms (target < 1 s)")


def unconstrained(n: int, seed: int = 1) -> Capture:
    rng = random.Random(seed)
    drawn = []
    for _ in range(n):
        start = rng.randrange(n)
        end = min(n, start + 1 + int(rng.expovariate(1 / MEAN_LIFETIME)))
        drawn.append((start, end, rng.randint(1, 4096)))
    drawn.sort()
    requests = tuple(Request(f"r{k}", size, s, e) for k, (s, e, size) in enumerate(drawn))
    memory = Memory(1 << 32, (Range(0, 1 << 32),))
    return Capture(f"unconstrained-{n}", n, memory, requests)


def comparison_section(sizes: tuple[int, ...]) -> None:
    try:
        from omnimalloc import Allocation
        from omnimalloc.allocators import GreedyBySizeAllocator
    except ImportError:
        GreedyBySizeAllocator = None
        print(f"omnimalloc is not installed ({INSTALL}): tilefit only")
    header = ("requests", "tilefit", "us/request", "omnimalloc", "ratio", "peak", "omni peak")
    print("  ".join(f"{h:>12}" for h in header))
    previous: tuple[int, float] | None = None
    for n in sizes:
        capture = unconstrained(n)
        repeats = 3 if n <= 100_000 else 1
        ours, attempt = best_of(repeats, lambda c=capture: run_strategy(c, "size/first-fit"))  # type: ignore[misc]
        assert attempt.fits
        theirs, peak = math.nan, None
        if GreedyBySizeAllocator is not None:
            allocations = tuple(
                Allocation(k, r.size, r.start, r.end) for k, r in enumerate(capture.requests)
            )
            theirs, placed = best_of(
                repeats,
                lambda a=allocations: GreedyBySizeAllocator().allocate(a),  # type: ignore[misc]
            )
            peak = max(a.offset + a.size for a in placed)
            assert attempt.peak_address <= peak, "tilefit's peak must be no larger"
        cells = (
            f"{n:,}",
            f"{ours:.3f} s",
            f"{ours / n * 1e6:.1f}",
            f"{theirs:.3f} s",
            f"{ours / theirs:.1f}x",
            f"{attempt.peak_address:,}",
            f"{peak:,}" if peak is not None else "-",
        )
        print("  ".join(f"{c:>12}" for c in cells))
        if previous is not None:
            n0, t0 = previous
            nlogn = n * math.log(n) / (n0 * math.log(n0))
            print(
                f"{'':>12}  x{ours / t0:.1f} time for x{n / n0:.0f} requests "
                f"(n log n predicts x{nlogn:.1f}, n^2 x{(n / n0) ** 2:.0f})"
            )
        previous = (n, ours)


def trace_section(paths: list[str]) -> None:
    from pathlib import Path

    from tilefit.bounds.live import live_peak, request_spans
    from tilefit.formats.minimalloc import capture_from_csv
    from tilefit.search.compiling import ensure_compiled

    ensure_compiled()  # the loop's one-time compilation is not its speed
    for given in paths:
        capture = capture_from_csv(Path(given).read_text(encoding="utf-8"), Path(given).name, 1)
        peak = live_peak(request_spans(capture.requests))[0]
        capture = Capture(
            capture.name, capture.horizon, Memory(peak, (Range(0, peak),)), capture.requests
        )
        ways = {
            "compiled": Prepared.of(capture, uniform_from=0),
            "one by one": Prepared.of(capture, uniform_from=1 << 62),
        }
        print(f"{capture.name}: {len(capture.requests):,} buffers, live peak {peak:,} B")
        print(f"  {'strategy':26}" + "".join(f"{w:>12}" for w in ways) + "  same")
        for strategy in STRATEGIES:
            cells, attempts = [], []
            for prepared in ways.values():
                began = time.monotonic()
                attempts.append(
                    run_strategy(prepared, strategy, lambda b=began: time.monotonic() - b > 120)
                )
                cells.append(f"{time.monotonic() - began:10.2f} s")
            same = "yes" if attempts[0] == attempts[1] else "NO"
            print(f"  {strategy.name:26}" + "".join(cells) + f"  {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="leave out 1,000,000 requests")
    parser.add_argument("--trace", action="append", default=[], help="a MiniMalloc CSV trace")
    parser.add_argument("--traces-only", action="store_true", help="only the --trace section")
    args = parser.parse_args()
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, "
        f"{platform.machine()}, {platform.processor() or 'cpu'}"
    )
    if not args.traces_only:
        print("\n== one capture of about 2,000 units, every constraint kind ==")
        strategies_section()
        print("\n== size/first-fit, unconstrained, side by side with omnimalloc greedy_by_size ==")
        comparison_section(SIZES[:2] if args.quick else SIZES)
    if args.trace:
        print("\n== real traces: each pass by the compiled loop and one by one (cut at 120 s) ==")
        trace_section(args.trace)


if __name__ == "__main__":
    main()
