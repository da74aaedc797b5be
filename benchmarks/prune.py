"""The stretch bound of the exact kernel on dense irregular subproblems, on and off.

Run from the repository root:

    .venv/bin/python benchmarks/prune.py [--seeds N] [--time-limit S] [--node-limit N]

Each instance is a planted tile (600 requests, 95% density) with its planted
placement: the free blocks are a window of K blocks (K = 20, 40, 60) alive
beside a block drawn at random and nearest its address, every other block
stands at its planted base, and ``search_free`` re-places the window around
them (irregular free space: the fixed blocks are obstacles, the classes'
ranges have gaps). Each window is searched as planted (feasible) and with
its largest single-piece block one alignment step larger (feasible or not),
once with the stretch bound (``Prunings(stretch=True)``)
and once without. The table gives, per setting, the instances decided, the
nodes and seconds over all of them and over those both settings decide, and the
placements the bound failed; every placement is refereed, and the two settings
must agree on every verdict.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import replace

from tilefit.generate.planted import PlantedRecipe, planted_tile
from tilefit.model.capture import Capture
from tilefit.model.deadline import Deadline
from tilefit.search.blocks import SearchModel, build_model
from tilefit.search.compiling import ensure_compiled
from tilefit.search.exact.solve import Budget, search_free
from tilefit.search.params import Prunings, SearchParams
from tilefit.search.routes import INFEASIBLE, SOLVED, TIMEOUT
from tilefit.verdicts.check import check

WINDOWS = (20, 40, 60, 90)


def window(model: SearchModel, bases: dict[int, int], size: int, rng: random.Random) -> list[int]:
    """``size`` blocks the kernel can take as free, alive beside a drawn one, nearest it."""
    pinned = set(model.pinned)
    free = [k for k in range(len(model.blocks)) if k not in pinned and k in bases]
    u = rng.choice(free)
    bu = model.blocks[u]
    near = [k for k in free if model.blocks[k].start < bu.end and bu.start < model.blocks[k].end]
    near.sort(key=lambda k: (abs(bases[k] - bases[u]), k))
    return sorted(near[:size])


def enlarged(capture: Capture, model: SearchModel, free: list[int]) -> Capture | None:
    """The capture with the request of the largest single-piece free block one
    alignment step larger (block numbers stay: the units keep their order)."""
    singles = [k for k in free if len(model.blocks[k].pieces) == 1]
    if not singles:
        return None
    k = max(singles, key=lambda j: (model.blocks[j].size, j))
    rid = model.blocks[k].pieces[0].request
    requests = tuple(
        replace(r, size=r.size + r.alignment) if r.id == rid else r for r in capture.requests
    )
    return replace(capture, requests=requests)


def run(
    capture: Capture, free: list[int], fixed: dict[int, int], on: bool, args: argparse.Namespace
) -> tuple[str, int, float, int]:
    """One search: status, nodes, seconds, placements the stretch bound failed."""
    model = build_model(capture)
    params = SearchParams(prunings=Prunings(stretch=on))
    budget = Budget(Deadline.start(args.time_limit), args.node_limit, params)
    began = time.monotonic()
    outcome = search_free(model, free, fixed, budget)
    seconds = time.monotonic() - began
    if outcome.status == SOLVED:
        assert outcome.bases is not None
        assert check(capture, model.placement(capture, outcome.bases)).valid, "invalid placement"
    return outcome.status, budget.nodes, seconds, budget.stretch_prunes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=4, help="planted tiles (seeds 0..N-1)")
    parser.add_argument("--time-limit", type=float, default=2.0, help="seconds per search")
    parser.add_argument("--node-limit", type=int, default=200_000, help="nodes per search")
    args = parser.parse_args()
    ensure_compiled()
    totals = {on: [0, 0, 0, 0.0, 0] for on in (True, False)}  # decided, ran, nodes, s, prunes
    both = {on: [0, 0, 0.0] for on in (True, False)}  # decided by both: count, nodes, s
    print(f"{'instance':24} {'on: status nodes s prunes':>36} {'off: status nodes s':>30}")
    for seed in range(args.seeds):
        capture, planted = planted_tile(PlantedRecipe(requests=600, density=0.95, seed=seed))
        base_model = build_model(capture)
        bases = base_model.bases_of(dict(planted.offsets))
        rng = random.Random(seed)
        for size in WINDOWS:
            free = window(base_model, bases, size, rng)
            fixed = {k: b for k, b in bases.items() if k not in set(free)}
            variants = [("planted", capture), ("grown", enlarged(capture, base_model, free))]
            for name, variant in variants:
                if variant is None:
                    continue
                row = {}
                for on in (True, False):
                    row[on] = run(variant, free, fixed, on, args)
                    t = totals[on]
                    t[0] += row[on][0] in (SOLVED, INFEASIBLE)
                    t[1] += 1
                    t[2] += row[on][1]
                    t[3] += row[on][2]
                    t[4] += row[on][3]
                decided = {row[on][0] for on in (True, False)} - {TIMEOUT}
                assert len(decided) <= 1, f"verdicts differ: {row}"
                if TIMEOUT not in (row[True][0], row[False][0]):
                    for on in (True, False):
                        both[on][0] += 1
                        both[on][1] += row[on][1]
                        both[on][2] += row[on][2]
                (s1, n1, t1, p1), (s0, n0, t0, _) = row[True], row[False]
                label = f"seed {seed} K={size} {name}"
                print(f"{label:24} {s1:>11} {n1:>9} {t1:6.2f} {p1:>7} {s0:>11} {n0:>9} {t0:6.2f}")
    print()
    for on in (True, False):
        d, n, nodes, secs, prunes = totals[on]
        print(
            f"stretch bound {'on ' if on else 'off'}: {d}/{n} decided, {nodes} nodes, "
            f"{secs:.2f} s, {prunes} placements failed by it; on the {both[on][0]} both "
            f"decide: {both[on][1]} nodes, {both[on][2]:.2f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
