"""The annealing's slide move switched off and on, on dense planted tiles, same starts and seeds.

Run from the repository root (after `pip install -e '.[test,bench]'`):

    .venv/bin/python benchmarks/slide.py     # about 15 minutes on 2 cores

Each planted tile (`tilefit.generate.planted`, 90-97% density, 400-900
requests, seeds 0-3) gets one annealing search (`tilefit.search.local.anneal`)
from the same start, the first constraint-aware greedy pass, with the same
seed: once with `SLIDE_SHARE` 0 (evictions only) and once with it at the
share given. Every search runs until it places every block, or for
`--iterations` iterations, or `--time-limit` seconds, whichever comes
first. Per tile and setting it prints whether every block was placed, the
iterations run (machine-independent: the answer depends only on the seed and
the iterations), the best area left out (bytes x steps) and the seconds.
Every full placement is refereed by `tilefit.verdicts.check`.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time

from tilefit.engine.attempt import Prepared, run_strategy
from tilefit.generate.planted import PlantedRecipe, planted_tile
from tilefit.model.capture import Capture
from tilefit.search.blocks import build_model
from tilefit.search.local.anneal import SLIDE_SHARE, Annealer
from tilefit.search.local.anneal_loop import SLIDE
from tilefit.search.local.contention import Features
from tilefit.search.warm import ensure_compiled
from tilefit.verdicts.check import check

DENSITIES = (0.9, 0.95, 0.97)
REQUESTS = (400, 600, 750, 900)  # by seed


def tiles() -> list[Capture]:
    return [
        planted_tile(PlantedRecipe(REQUESTS[seed], density, seed))[0]
        for density in DENSITIES
        for seed in range(len(REQUESTS))
    ]


def run(
    capture: Capture, share: float, seed: int, iterations: int, limit: float
) -> tuple[bool, int, int, float]:
    """(every block placed, iterations run, best area left out, seconds) of one search."""
    model = build_model(capture)
    prepared = Prepared.of(capture)
    attempt = run_strategy(prepared, Features.of(model, prepared).strategy(0, random.Random(0)))
    annealer = Annealer(model, model.bases_of(attempt.offsets), seed)
    annealer.knobs[SLIDE] = share
    started = time.monotonic()
    bases = annealer.run(iterations, started + limit)
    seconds = time.monotonic() - started
    if bases is not None and not check(capture, model.placement(capture, bases)).valid:
        raise SystemExit(f"{capture.name}: the placement fails the referee")
    return bases is not None, int(annealer.counters[2]), annealer.left_out, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=150_000, help="per search")
    parser.add_argument("--time-limit", type=float, default=200.0, help="seconds per search")
    parser.add_argument("--share", type=float, default=SLIDE_SHARE or 0.5, help="slide share on")
    parser.add_argument("--seeds", type=int, default=1, help="annealing seeds per tile (1, 2, ...)")
    args = parser.parse_args()
    ensure_compiled()
    print(
        f"python {platform.python_version()}, {args.iterations} iterations or "
        f"{args.time_limit:g} s per search, slide share on = {args.share:g}"
    )
    head = f"{'tile':24s} seed {'off: solved iters left s':>28s}   {'on: solved iters left s':>28s}"
    print(head)
    totals = {0.0: [0, 0, 0], args.share: [0, 0, 0]}  # solved, iterations, left out
    less = 0  # searches where on leaves out less than off (or places all in fewer iterations)
    captures = tiles()
    for capture in captures:
        for seed in range(1, args.seeds + 1):
            cells = []
            ends = []
            for share in (0.0, args.share):
                solved, done, left, s = run(capture, share, seed, args.iterations, args.time_limit)
                t = totals[share]
                t[0] += solved
                t[1] += done
                t[2] += left
                ends.append((left, done if solved else 0))
                cells.append(f"{'yes' if solved else 'no':>6s} {done:7d} {left:8d} {s:5.1f}")
            less += ends[1] < ends[0]
            print(f"{capture.name:24s} {seed:4d} {cells[0]:>28s}   {cells[1]:>28s}", flush=True)
    for share, (solved, done, left) in totals.items():
        print(f"share {share:g}: {solved} placed, {done} iterations, {left} left out in all")
    print(f"on better than off in {less} of {len(captures) * args.seeds} searches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
