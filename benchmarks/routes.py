"""Route and pruning ablation: what each route of the search portfolio, and each pruning
of its exact kernel, decides that the search without it does not.

Run from the repository root (after `pip install -e '.[test,bench]'`):

    .venv/bin/python benchmarks/routes.py            # about 30 minutes on 2 cores
    .venv/bin/python benchmarks/routes.py --quick    # 2 tiles per density, 1 per shape

The tiles are those of `hard_tiles.py` (both families, every density, the
same seeds) and `hard_regimes.py` (every shape), and the infeasible set of
`tilefit.generate.infeasible`. Each goes to the portfolio
(`tilefit.search.portfolio.decide`, S seconds, as `diagnose` and `solve` run
it) first with every route on, then once with each route of the portfolio (the
find and prove members' routes of the registry) switched off, then once with each
pruning of
`tilefit.search.params.Prunings` switched (dominance, decomposition and twin off;
the stretch bound, off by default, on), then once with each lever of `LEVERS`
switched from its default (issue 30's: `paced_turns`, the exact search's
turns paced by time; `learning`, its restarts ranking first the blocks it
failed under most; issue 40's: route `cpsat` without its `hint`, the closest
placement, or without `no_overlap_2d`'s `energetic` or `timetabling`
reasoning). Every placement is refereed; a placement of an infeasible tile,
or a proof on a feasible one, is a wrong verdict.

With a route off, only the tiles decided with every route on are run again
(what the route may lose); the tiles nobody decided take S seconds each and
are run again only with `--all` (what switching a route off may free time
for). A route whose line loses nothing decides nothing the others do not;
`--off a+b` switches two together, to see whether they stand in for
each other (route and pruning names mix: `--off twin+dominance,exact`).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from dataclasses import dataclass, fields, replace

from hard_regimes import regime_tiles
from hard_tiles import FAMILIES, density_tiles, warm_up

from tilefit.generate.infeasible import infeasible_tiles
from tilefit.model.capture import Capture
from tilefit.model.deadline import Deadline
from tilefit.search.params import DEFAULT, SearchParams, Tuned
from tilefit.search.portfolio import decide
from tilefit.search.problem import Problem
from tilefit.search.routes import (
    FIND,
    INFEASIBLE,
    PROVE,
    SOLVED,
    TIMEOUT,
    Routes,
    names,
    registered,
    switchable,
)
from tilefit.search.sat.route import CpsatParams
from tilefit.verdicts.check import check


@dataclass(frozen=True)
class Tile:
    name: str
    capture: Capture
    feasible: bool  # known by construction


@dataclass(frozen=True)
class Answer:
    decided: bool
    route: str | None
    seconds: float
    wrong: bool


def tiles(per_density: int, per_shape: int, seed: int, densest: float = 0.0) -> list[Tile]:
    """The tiles, those of hard_tiles.py's densities from ``densest`` on; with ``densest``
    above 0, not those of hard_regimes.py."""
    out: list[Tile] = []
    for family, target, hard, _ in density_tiles(list(FAMILIES), per_density, seed):
        if target >= densest:
            out += [Tile(f"{c.name}", c, True) for c in hard]
            print(f"  {family} {target:.0%}: {len(hard)} hard tiles", flush=True)
    if densest <= 0:
        shapes = [s for s in regime_tiles(per_shape) if not isinstance(s, str)]
        out += [Tile(f"{c.name}-h{h}", c, True) for c, h in shapes]
        print(f"  regimes: {len(shapes)} hard tiles", flush=True)
    out += [Tile(f"infeasible-{kind}", c, False) for kind, c in infeasible_tiles(seed)]
    return out


PRUNINGS = tuple(f.name for f in fields(DEFAULT.prunings))
"""The kernel's switchable prunings, each switched from its default by name."""

LEVERS: dict[str, str | type[Tuned]] = {
    "paced_turns": "portfolio",
    "learning": "exact",
    "hint": CpsatParams,
    "energetic": CpsatParams,
    "timetabling": CpsatParams,
}
"""Other switches of ``SearchParams`` (issue 30's levers; issue 40's: route ``cpsat``'s
hint and its packing reasoning), each switched from its default by name: the field, and
the shared group of the parameters that holds it, or the route's own group."""


def _portfolio() -> tuple[str, ...]:
    """The routes of the portfolio's members, by member and rank."""
    return names(r for r in registered() if r.member in (FIND, PROVE))


def switched(names: list[str]) -> SearchParams:
    """The default parameters with the routes among ``names`` off and the prunings and
    levers among them switched from their default (ValueError for a name that is none)."""
    routes = switchable()
    unknown = sorted(set(names) - set(routes) - set(PRUNINGS) - set(LEVERS))
    if unknown:
        raise ValueError(f"neither a route, a pruning nor a lever: {', '.join(unknown)}")
    flipped = {n: not getattr(DEFAULT.prunings, n) for n in names if n in PRUNINGS}
    params = SearchParams(
        routes=Routes.without(n for n in names if n in routes),
        prunings=replace(DEFAULT.prunings, **flipped),
    )
    for name in (n for n in names if n in LEVERS):
        holder = LEVERS[name]
        if isinstance(holder, str):
            group = getattr(params, holder)
            params = replace(params, **{holder: replace(group, **{name: not getattr(group, name)})})
        else:
            own = params.of(holder)
            params = params.tune(replace(own, **{name: not getattr(own, name)}))
    return params


def answer(tile: Tile, limit: float, params: SearchParams) -> Answer:
    started = time.monotonic()
    d = decide(Problem(tile.capture), Deadline.start(limit), params=params)
    seconds = time.monotonic() - started
    wrong = False
    if d.status == SOLVED:
        wrong = not tile.feasible or d.placement is None
        wrong = wrong or not check(tile.capture, d.placement).valid  # type: ignore[arg-type]
    elif d.status == INFEASIBLE:
        wrong = tile.feasible
    if wrong:
        print(f"  !!! WRONG: {d.status} by {d.route} on {tile.name}", flush=True)
    return Answer(d.status != TIMEOUT and not wrong, d.route, seconds, wrong)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per tile")
    parser.add_argument("--per-density", type=int, default=6, help="as hard_tiles.py's")
    parser.add_argument("--per-shape", type=int, default=2, help="as hard_regimes.py's")
    parser.add_argument("--seed", type=int, default=0, help="as hard_tiles.py's")
    parser.add_argument("--quick", action="store_true", help="2 tiles per density, 1 per shape")
    parser.add_argument("--all", action="store_true", help="rerun undecided tiles too")
    parser.add_argument(
        "--densest",
        type=float,
        default=0.0,
        help="only hard_tiles.py's tiles of this density and above, and the infeasible set "
        "(e.g. 0.9 for issue 20's levers)",
    )
    parser.add_argument(
        "--off",
        default="",
        help="the runs to make, comma-separated, each the routes, prunings and levers it "
        "switches joined by '+' (e.g. greedy+repair,twin,paced_turns); default: each route "
        "alone, then each pruning, then each lever",
    )
    args = parser.parse_args()
    per_density, per_shape = (2, 1) if args.quick else (args.per_density, args.per_shape)
    limit = args.time_limit
    print(
        f"python {platform.python_version()}, {platform.machine()}; {per_density} hard tile(s) "
        f"per density, {per_shape} per shape, {limit:g} s per tile"
    )
    warm_up()
    print("drawing the tiles:", flush=True)
    every = tiles(per_density, per_shape, args.seed, args.densest)
    base = {}
    for tile in every:
        base[tile.name] = answer(tile, limit, DEFAULT)
    decided = [t for t in every if base[t.name].decided]
    wins: dict[str, int] = {}
    for a in base.values():
        if a.route is not None:
            wins[a.route] = wins.get(a.route, 0) + 1
    print(f"\nevery route on: {len(decided)}/{len(every)} decided")
    print("  decided by: " + ", ".join(f"{r} {n}" for r, n in sorted(wins.items())))
    rerun = every if args.all else decided
    print(
        f"\n{'switched':14} {'decided':>9} {'lost':>5} {'gained':>6} "
        f"{'median s':>8} {'max s':>6}  tiles lost (and who decided them with every route)"
    )
    configurations = [
        [r.strip() for r in run.split("+") if r.strip()]
        for run in args.off.split(",")
        if run.strip()
    ] or [[name] for name in (*_portfolio(), *PRUNINGS, *LEVERS)]
    runs = [switched(off) for off in configurations]  # a wrong name stops before any run
    wrong = sum(a.wrong for a in base.values())
    for off, params in zip(configurations, runs, strict=True):
        route = "+".join(off)
        answers = {t.name: answer(t, limit, params) for t in rerun}
        wrong += sum(a.wrong for a in answers.values())
        lost = [n for n, a in answers.items() if base[n].decided and not a.decided]
        gained = [n for n, a in answers.items() if a.decided and not base[n].decided]
        count = sum(
            (answers[t.name].decided if t.name in answers else base[t.name].decided) for t in every
        )
        seconds = [a.seconds for a in answers.values()]
        shown = ", ".join(f"{n} ({base[n].route})" for n in lost) or "-"
        print(
            f"{route:14} {count:>4}/{len(every):<4} {len(lost):>5} {len(gained):>6} "
            f"{statistics.median(seconds):8.2f} {max(seconds):6.2f}  {shown}",
            flush=True,
        )
    print(f"\nwrong verdicts: {wrong}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
