"""What the choice proof decides on realistic tiles, and what it costs (issue 30, item 3).

    .venv/bin/python benchmarks/choice.py                 # seeds 0-4: about 10 minutes on 2 cores
    .venv/bin/python benchmarks/choice.py --seeds 7 --time-limit 10
    .venv/bin/python benchmarks/choice.py --seeds 2 --tiles 503 --time-limit 60 --cpsat
    .venv/bin/python benchmarks/choice.py --cpsat --lever stretches   # about 12 minutes

Synthetic models (``tilefit synth``: 1,472 IPU-like tiles of about 500 requests,
15% of them tight, 8% over) are where the memory is cut into stretches (the
variables below the exchange buffers, the interleaved region above, a
scratch-only aperture). Per seed: every tile through ``diagnose`` without the
search (replay, the bounds, the 16 strategies); the tiles left undetermined
then get the choice proof alone (``tilefit.search.proofs.choice.choice_core``,
timed, at most ``--time-limit`` s each), and each tile it proves goes through
``diagnose`` with the search but the route ``choice`` off, to show what the
rest of the portfolio says of it in the same limit. Each proof's core, as a
capture of its own, is given to the exact search too (a second opinion that
can only confirm: a placement of a core would be a wrong proof, counted).
The tiles it does not prove go through ``diagnose`` with every route, so the
record says what is left undetermined (each named with its verdict and route); with
``--cpsat`` CP-SAT alone (``tilefit.peers.cpsat``, 2 workers, the same limit) beside
it, its placement refereed; with ``--lever ROUTE`` ``diagnose`` again without that
route beside both. ``--tiles`` takes only those tiles of each model.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections import Counter

from tilefit.generate.synth import synth_model
from tilefit.model.capture import Capture
from tilefit.model.deadline import Deadline
from tilefit.model.units import units_only
from tilefit.peers.cpsat import cpsat_solve
from tilefit.search import exact_search
from tilefit.search.blocks import build_model
from tilefit.search.params import SearchParams
from tilefit.search.problem import Problem
from tilefit.search.proofs.choice import choice_core
from tilefit.search.routes import SOLVED, Routes
from tilefit.verdicts.check import check
from tilefit.verdicts.diagnose import diagnose


def run_seed(
    seed: int,
    limit: float,
    verdicts: Counter[str],
    tiles: set[int] | None,
    cpsat: bool,
    lever: str | None = None,
) -> tuple[int, int, list[float], int]:
    """(undetermined without the search, proven by the choice, proof seconds, wrong); the
    verdicts of ``diagnose`` with every route on the others are counted in ``verdicts``."""
    open_tiles: list[Capture] = []
    started = time.monotonic()
    for k, capture in enumerate(synth_model(seed=seed)):
        if tiles is not None and k not in tiles:
            continue
        if diagnose(capture, search=False).verdict == "undetermined":
            open_tiles.append(capture)
    print(
        f"seed {seed}: {len(open_tiles)} tiles undetermined without the search "
        f"({time.monotonic() - started:.0f} s)",
        flush=True,
    )
    seconds: list[float] = []
    proven = wrong = 0
    without_choice = SearchParams(routes=Routes.without(["choice"]))
    for capture in open_tiles:
        model = build_model(capture)
        began = time.monotonic()
        core = choice_core(model, began + limit)
        seconds.append(time.monotonic() - began)
        if core is None:
            wrong += _open_tile(capture, limit, verdicts, cpsat, lever)
            continue
        proven += 1
        ids = {model.blocks[k].id for k in core}
        second = exact_search(Problem(units_only(capture, ids)), Deadline.start(limit))
        wrong += second.status == SOLVED
        rest = diagnose(capture, time_limit=limit, params=without_choice)
        route = f" ({rest.route})" if rest.route else ""
        print(
            f"  {capture.name}: proven in {seconds[-1]:.2f} s, core of {len(core)} units; "
            f"the exact search on the core: {second.status} in {second.seconds:.1f} s; "
            f"diagnose without the choice, {limit:g} s: {rest.verdict}{route}",
            flush=True,
        )
    return len(open_tiles), proven, seconds, wrong


def _open_tile(
    capture: Capture, limit: float, verdicts: Counter[str], cpsat: bool, lever: str | None
) -> int:
    """``diagnose`` on a tile the choice does not prove (and CP-SAT alone beside it, and
    ``diagnose`` with the route ``lever`` off): how many wrong answers (a placement the
    referee refuses)."""
    d = diagnose(capture, time_limit=limit)
    verdicts[d.verdict] += 1
    route = f" ({d.route})" if d.route else ""
    line = f"  {capture.name}: diagnose {d.verdict}{route} in {d.seconds:.1f} s"
    wrong = 0
    if lever is not None:
        off = diagnose(
            capture, time_limit=limit, params=SearchParams(routes=Routes.without([lever]))
        )
        verdicts[f"{off.verdict} without {lever}"] += 1
        wrong += off.placement is not None and not check(capture, off.placement).valid
        by = f" ({off.route})" if off.route else ""
        line += f"; without {lever}: {off.verdict}{by} in {off.seconds:.1f} s"
    if cpsat:
        status, placement, seconds = cpsat_solve(capture, limit, workers=2)
        wrong = placement is not None and not check(capture, placement).valid
        line += f"; CP-SAT alone {status} in {seconds:.1f} s"
    print(line, flush=True)
    return int(wrong)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seeds", default="0,1,2,3,4", help="synthetic model seeds, comma-separated"
    )
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per tile")
    parser.add_argument("--tiles", default="", help="only these tiles of each model, e.g. 503")
    parser.add_argument("--cpsat", action="store_true", help="CP-SAT alone beside diagnose")
    parser.add_argument(
        "--lever", default=None, help="a route: the tiles left open diagnosed again without it"
    )
    args = parser.parse_args()
    if args.lever is not None:
        Routes.without([args.lever])  # an unknown name stops here, before any tile
    tiles = {int(t) for t in args.tiles.split(",")} if args.tiles else None
    seeds = [int(s) for s in args.seeds.split(",")]
    print(
        f"python {platform.python_version()}, {platform.machine()}; synthetic models of 1,472 "
        f"tiles, seeds {args.seeds}; {args.time_limit:g} s per proof and per diagnose"
    )
    totals = [0, 0, 0]
    every: list[float] = []
    verdicts: Counter[str] = Counter()
    for seed in seeds:
        open_count, proven, seconds, wrong = run_seed(
            seed, args.time_limit, verdicts, tiles, args.cpsat, args.lever
        )
        totals[0] += open_count
        totals[1] += proven
        totals[2] += wrong
        every += seconds
    median = statistics.median(every) if every else 0.0
    print(
        f"\nall seeds: {totals[1]} of {totals[0]} tiles left undetermined by the strategies "
        f"proven infeasible by the choice; proof seconds median {median:.3f}, "
        f"max {max(every, default=0.0):.2f}; wrong answers (a core the exact search places, "
        f"a placement refused): "
        f"{totals[2]}"
    )
    rest = ", ".join(f"{v} {n}" for v, n in sorted(verdicts.items()))
    print(f"the other {totals[0] - totals[1]}, diagnose with every route: {rest}")
    return 0 if totals[2] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
