"""Hard tiles of other shapes: `diagnose` against CP-SAT where the horizon and the count differ.

Run from the repository root (after `pip install -e '.[test,bench]'`):

    .venv/bin/python benchmarks/hard_regimes.py     # about 15 minutes at most on 2 cores

`hard_tiles.py` measures 300-1,500 requests over 96 steps. Verdicts are
judged on captures tilefit has never seen, so this sweeps the shape: short
horizons (many requests live together), long ones (each lives a small share),
few requests (large ones) and many (small ones), for both families of
`tilefit.generate`, at 90% and 95% density. On each shape, the first N hard
tiles drawn (production and all 16 strategies fail) go to `diagnose` and to
CP-SAT (2 workers), S seconds each, one after the other. Every placement is
refereed by `tilefit.verdicts.check.check`; a capacity or infeasible verdict
on these feasible tiles is counted as wrong.
"""

from __future__ import annotations

import argparse
import platform
import sys
from collections.abc import Callable, Iterator

from hard_tiles import WORKERS, Tally, referee, warm_up
from needs import need

from tilefit.generate.planted import PlantedRecipe, density, planted_tile
from tilefit.generate.scattered import ScatteredRecipe, scattered_tile
from tilefit.model.capture import Capture
from tilefit.model.placement import Placement
from tilefit.peers.cpsat import cpsat_solve
from tilefit.verdicts.diagnose import diagnose
from tilefit.verdicts.experiment import experiment

# (horizon, requests asked): short, usual, long; few large requests, many small ones
SHAPES = ((12, 400), (24, 150), (96, 300), (96, 3000), (200, 600))
DENSITIES = (0.9, 0.95)
TRIES = 30  # seeds drawn per shape and density before giving up on finding hard tiles

Make = Callable[[int, float, int, int], tuple[Capture, Placement]]
FAMILIES: dict[str, Make] = {
    "planted": lambda n, d, s, h: planted_tile(PlantedRecipe(n, d, s, horizon=h)),
    "scattered": lambda n, d, s, h: scattered_tile(ScatteredRecipe(n, d, s, horizon=h)),
}


def regime_tiles(per_shape: int) -> Iterator[tuple[Capture, int] | str]:
    """The first ``per_shape`` hard tiles (production and all 16 strategies fail) of each
    family, shape and density, with their horizon; a line of text for a shape where
    none was drawn in ``TRIES`` seeds."""
    for family, make in FAMILIES.items():
        for horizon, asked in SHAPES:
            for target in DENSITIES:
                found = 0
                for seed in range(TRIES):
                    if found >= per_shape:
                        break
                    capture, _ = make(asked, target, seed, horizon)
                    if density(capture) < target - 0.005 or any(
                        row.fits for row in experiment(capture)
                    ):
                        continue
                    found += 1
                    yield capture, horizon
                if not found:
                    yield (
                        f"{family}-d{round(target * 100)}-n{asked}-h{horizon}: "
                        f"no hard tile in {TRIES} seeds"
                    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-shape", type=int, default=2, help="hard tiles per shape")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per solver run")
    args = parser.parse_args()
    need("ortools", __file__)
    from importlib.metadata import version

    print(
        f"python {platform.python_version()}, ortools {version('ortools')}, "
        f"{platform.machine()}; {args.per_shape} hard tile(s) per shape and density, "
        f"{args.time_limit:g} s per solver, CP-SAT on {WORKERS} workers"
    )
    warm_up()
    ours, theirs = Tally(), Tally()
    wrong = 0
    print(f"\n{'tile':32} {'requests':>8} {'steps':>5}  {'diagnose':28} CP-SAT")
    for shape in regime_tiles(args.per_shape):
        if isinstance(shape, str):
            print(shape)
            continue
        capture, horizon = shape
        d = diagnose(capture, time_limit=args.time_limit)
        ok = referee(capture, d.placement, "diagnose")
        if d.verdict in ("capacity", "infeasible") or not ok:
            print(f"  !!! WRONG VERDICT: diagnose says {d.verdict} on {capture.name}")
            wrong += 1
        ours.add(d.verdict in ("fits", "fragmentation") and ok, d.seconds)
        status, placement, seconds = cpsat_solve(capture, args.time_limit, workers=WORKERS)
        ok = referee(capture, placement, "CP-SAT")
        if status == "infeasible" or not ok:
            print(f"  !!! WRONG VERDICT: CP-SAT says {status} on {capture.name}")
            wrong += 1
        theirs.add(status == "solved" and ok, seconds)
        route = d.strategy or d.search_status or ""
        print(
            f"{capture.name + f'-h{horizon}':32} {len(capture.requests):8} "
            f"{horizon:5}  {d.verdict:13} {d.seconds:5.1f} s {route:9} "
            f"{status:8} {seconds:5.1f} s"
        )
    print(f"\ndiagnose: {ours.line(args.time_limit)}")
    print(f"CP-SAT:   {theirs.line(args.time_limit)}")
    both = sum(a and b for (a, _), (b, _) in zip(ours.runs, theirs.runs, strict=True))
    only_theirs = sum(b and not a for (a, _), (b, _) in zip(ours.runs, theirs.runs, strict=True))
    print(f"decided by both: {both}; by CP-SAT alone: {only_theirs}; wrong verdicts: {wrong}")
    print(
        f"largest overrun of diagnose's limit (in-process): {ours.overrun(args.time_limit):+.2f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
