"""How close `undetermined` says a tile is: the closest placement against the best greedy pass.

Run from the repository root (after `pip install -e '.[test,bench]'`):

    .venv/bin/python benchmarks/closest.py     # about 2.5 minutes on 2 cores

On planted tiles (`tilefit.generate.planted`) of 700 requests at 90-100%,
which `diagnose` leaves undecided, it compares the closest placement
`diagnose --time-limit S` reports with the best greedy pass alone (the 16
strategies and the constraint-aware orders in the extended memory, each run
to the end, without the descent: what `undetermined` reported before it used
the search's best partial placement and the descent). Every tile fits in its
memory (a planted placement exists), so the smaller the overflow, the truer
the report. Each closest placement is
refereed in the extended memory.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys

from tilefit.generate.planted import PlantedRecipe, planted_tile
from tilefit.model.deadline import Deadline
from tilefit.search.closest import closest, extended
from tilefit.verdicts.check import check
from tilefit.verdicts.diagnose import diagnose

DENSITIES = (0.9, 0.95, 0.97, 1.0)
REQUESTS = 700


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-density", type=int, default=3, help="tiles per density")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per diagnose")
    args = parser.parse_args()
    print(f"python {platform.python_version()}, diagnose --time-limit {args.time_limit:g}")
    print(f"{'tile':28s} {'verdict':14s} {'greedy':>8s} {'closest':>8s}  less  from")
    ratios: list[float] = []
    for target in DENSITIES:
        for seed in range(args.per_density):
            capture, _ = planted_tile(PlantedRecipe(REQUESTS, target, seed))
            greedy = closest(
                capture, Deadline.start(600.0), descent=False
            )  # every greedy pass alone
            found = diagnose(capture, time_limit=args.time_limit)
            c = found.closest
            if found.verdict != "undetermined" or c is None or greedy is None:
                print(f"{capture.name:28s} {found.verdict:14s} (decided: not compared)")
                continue
            if not check(extended(capture, c.overflow), c.placement).valid:
                print(f"{capture.name}: the closest placement fails the referee")
                return 1
            less = 1 - c.overflow / greedy.overflow if greedy.overflow else 0.0
            ratios.append(less)
            print(
                f"{capture.name:28s} {found.verdict:14s} {greedy.overflow:8d} "
                f"{c.overflow:8d}  {less:4.0%}  {c.strategy}"
            )
    if ratios:
        print(
            f"overflow less than the best greedy pass: median {statistics.median(ratios):.0%}, "
            f"from {min(ratios):.0%} to {max(ratios):.0%} over {len(ratios)} undecided tiles"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
