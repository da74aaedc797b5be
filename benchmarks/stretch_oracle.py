"""Why route `stretches` does not decide the planted family: its slaves, given the right master.

Run from the repository root (after `pip install -e '.[test,bench]'`):

    .venv/bin/python benchmarks/stretch_oracle.py              # about 2 minutes on 2 cores
    .venv/bin/python benchmarks/stretch_oracle.py --seconds 10

Route `stretches` (`tilefit.search.stretches`) chooses each block's stretch of
memory, then places every stretch alone. On a planted tile
(`tilefit.generate.planted`) the planted placement gives a choice that is
known to work: an oracle master. Each stretch of that choice, as a tile of its
own, goes to the route's two slaves apart, each for `--seconds`: the exact search
(`tilefit.search.exact.solve.search_model`, the stretch's pinned blocks
enumerated) and the find member's routes (`tilefit.search.local.find`, on the
stretch alone). A stretch neither places, even when told which blocks are its
own, is one the route cannot place whatever its master chooses. Then the route
itself (`decompose`) on the whole tile for `--route-seconds`, with the master's
own choices. Every placement is refereed.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

from tilefit.generate.planted import PlantedRecipe, density, planted_tile
from tilefit.model.capture import Capture
from tilefit.model.deadline import Deadline
from tilefit.search.blocks import build_model
from tilefit.search.exact.solve import Budget, search_model
from tilefit.search.local.find import find_placement
from tilefit.search.problem import Problem
from tilefit.search.proofs.choice import stretches_of
from tilefit.search.routes import SOLVED
from tilefit.search.stretches import confined, decompose, stretch_capture
from tilefit.verdicts.check import check

DENSITIES = (0.85, 0.9, 0.95)


def oracle(
    capture: Capture, placement_offsets: dict[str, int], seconds: float
) -> tuple[int, int, int]:
    """(stretches, placed by the exact search, placed by the find member's routes)."""
    model = build_model(capture)
    choices = stretches_of(model)
    assert choices is not None, f"{capture.name}: memory is one stretch"
    bases = model.bases_of(placement_offsets)
    exact = found = 0
    for span in choices.stretches:
        blocks = [k for k in range(len(model.blocks)) if span[0] <= bases[k] < span[1]]
        began = time.monotonic()
        outcome = search_model(confined(model, span, blocks), Budget(Deadline.start(seconds)))
        exact_s = time.monotonic() - began
        sub = stretch_capture(capture, [model.blocks[k].id for k in blocks], span)
        decision = find_placement(Problem(sub), Deadline.start(seconds))
        ok = decision.status == SOLVED and decision.placement is not None
        if ok:
            assert decision.placement is not None and check(sub, decision.placement).valid
        exact += outcome.status == SOLVED
        found += ok
        print(
            f"    stretch [{span[0]}, {span[1]}): {len(blocks):4} blocks, "
            f"{len(confined(model, span, blocks).pinned):3} pinned; exact {outcome.status:10} "
            f"{exact_s:5.1f} s; find {decision.status:8} {decision.seconds:5.1f} s"
            + (f" ({decision.route})" if ok else ""),
            flush=True,
        )
    return len(choices.stretches), exact, found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0,1", help="planted tile seeds, comma-separated")
    parser.add_argument("--requests", type=int, default=600, help="requests per tile")
    parser.add_argument("--seconds", type=float, default=3.0, help="per slave and stretch")
    parser.add_argument("--route-seconds", type=float, default=10.0, help="the route alone")
    args = parser.parse_args()
    print(
        f"python {platform.python_version()}, {platform.machine()}; planted tiles of "
        f"{args.requests} requests, seeds {args.seeds}; {args.seconds:g} s per slave and "
        f"stretch, {args.route_seconds:g} s for the route"
    )
    totals = [0, 0, 0, 0, 0]  # stretches, exact, find, tiles, route placed
    for d in DENSITIES:
        for seed in (int(s) for s in args.seeds.split(",")):
            capture, placement = planted_tile(PlantedRecipe(args.requests, d, seed))
            print(f"  {capture.name} ({len(capture.requests)} requests, {density(capture):.1%})")
            n, exact, found = oracle(capture, dict(placement.offsets), args.seconds)
            model = build_model(capture)
            began = time.monotonic()
            route = decompose(model, began + args.route_seconds, capture=capture)
            placed = route.status == SOLVED and route.bases is not None
            if placed:
                assert route.bases is not None
                assert check(capture, model.placement(capture, route.bases)).valid
            print(
                f"    the planted choice: exact places {exact}/{n} stretches, find {found}/{n}; "
                f"the route alone: {route.status} in {time.monotonic() - began:.1f} s, "
                f"{route.rounds} choices, {route.cuts} cuts",
                flush=True,
            )
            for k, v in enumerate((n, exact, found, 1, int(placed))):
                totals[k] += v
    n, exact, found, tiles, route_placed = totals
    print(
        f"\nall: with the planted choice the exact search places {exact}/{n} stretches, the find "
        f"member's routes {found}/{n}; the route alone places {route_placed}/{tiles} tiles"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
