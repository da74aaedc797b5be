"""What makes a dense planted tile hard: the same tiles with constraint kinds taken away.

Run from the repository root (after `pip install -e '.[test]'`):

    .venv/bin/python benchmarks/dense_kinds.py            # about 10 minutes on 2 cores
    .venv/bin/python benchmarks/dense_kinds.py --quick    # 1 seed per density
    .venv/bin/python benchmarks/dense_kinds.py --seeds 2 --scaling-only   # the last part alone

Planted tiles (`tilefit.generate.planted`) at 95, 97 and 100% density, 300-700
requests, each built again from the same seed with fewer constraint kinds:

* full: every kind (sequences whose members keep their own lifetimes, conflict
  edges, interleaved requests, alignments below what the address allows, the
  class-only aperture, the gaps between ranges);
* no sequences; no sequences or conflicts;
* plain: none of the recipe's kinds (still its ranges, their gaps and the
  scratch-only aperture);
* plain, no gaps: the same tile with the gaps between its ranges cut out of the
  address space and every class admitted everywhere, so the density is the
  same and the planted placement, moved down with its range, stays valid.

Each goes to `diagnose` with the same limit. If the plain tiles are as hard as
the full ones, what is hard is the packing itself, not tilefit's constraint
kinds, and a lever that only handles a kind better cannot decide them.

Then (`--scaling`, on by default) the exact search alone (`tilefit.search.exact_search`,
5 s) on the plain tiles without gaps at 90, 95 and 100%, from 100 to 500 requests:
where its tree stops fitting in the limit; and MiniMalloc's command line on each (built
by `benchmarks/peers/build_minimalloc.sh`), the same question with the same limit.
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from peers.minimalloc import BINARY as MINIMALLOC
from peers.minimalloc import fits_at
from peers.traces import plain_csv

from tilefit.generate.planted import PlantedRecipe, planted_tile
from tilefit.model.capture import Capture, Range
from tilefit.model.deadline import Deadline
from tilefit.model.placement import Placement
from tilefit.search import exact_search
from tilefit.search.problem import Problem
from tilefit.verdicts.check import check
from tilefit.verdicts.diagnose import diagnose

PLAIN = {
    "sequence_share": 0.0,
    "conflict_share": 0.0,
    "interleaved_share": 0.0,
    "less_aligned_share": 0.0,
}
KINDS: dict[str, dict[str, float]] = {
    "full": {},
    "no sequences": {"sequence_share": 0.0},
    "no seq/conflicts": {"sequence_share": 0.0, "conflict_share": 0.0},
    "plain": PLAIN,
}
DENSITIES = (0.95, 0.97, 1.0)


def without_gaps(capture: Capture, placement: Placement) -> tuple[Capture, Placement]:
    """The capture with its ranges moved down against each other, open to every class,
    and the placement moved with them (no request straddles a gap, so it stays valid)."""
    memory = capture.memory
    moves: list[tuple[int, int, int]] = []  # (start, end, how far down)
    top = 0
    for r in sorted(memory.ranges, key=lambda r: r.start):
        moves.append((r.start, r.end, r.start - top))
        top += r.end - r.start

    def moved(offset: int) -> int:
        return next(offset - down for lo, hi, down in moves if lo <= offset < hi)

    closed = replace(
        memory, size=top, ranges=(Range(0, top),), elements=(0,), interleaved_offset=None
    )
    requests = tuple(replace(r, interleaved=False) for r in capture.requests)
    offsets = {i: moved(o) for i, o in placement.offsets.items()}
    flat = replace(capture, name=f"{capture.name}-nogaps", memory=closed, requests=requests)
    return flat, Placement(flat.name, offsets)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per tile")
    parser.add_argument("--seeds", type=int, default=3, help="tiles per density")
    parser.add_argument("--requests", type=int, default=500, help="requests per tile, about")
    parser.add_argument("--quick", action="store_true", help="1 seed per density")
    parser.add_argument("--no-scaling", action="store_true", help="skip the exact search's part")
    parser.add_argument("--scaling-only", action="store_true", help="only the exact search's part")
    parser.add_argument(
        "--densities", type=float, nargs="+", default=DENSITIES, help="of the first part"
    )
    args = parser.parse_args()
    if args.scaling_only:
        scaling(1 if args.quick else args.seeds)
        return 0
    seeds = 1 if args.quick else args.seeds
    limit = args.time_limit
    print(
        f"python {platform.python_version()}, {platform.machine()}; planted tiles of about "
        f"{args.requests} requests, {seeds} per density, {limit:g} s each"
    )
    names = [*KINDS, "plain, no gaps"]
    decided = dict.fromkeys(names, 0)
    runs = 0
    print(f"\n{'tile':24} " + " ".join(f"{n:>16}" for n in names))
    for density in args.densities:
        for seed in range(seeds):
            cells = []
            for name in names:
                recipe = PlantedRecipe(args.requests, density, seed, **KINDS.get(name, PLAIN))
                capture, placement = planted_tile(recipe)
                if name == "plain, no gaps":
                    capture, placement = without_gaps(capture, placement)
                assert check(capture, placement).valid, f"{capture.name}: planted placement"
                d = diagnose(capture, time_limit=limit)
                wrong = d.verdict in ("capacity", "infeasible")
                if wrong:
                    print(f"  !!! WRONG VERDICT {d.verdict} on feasible {capture.name}")
                ok = d.verdict in ("fits", "fragmentation")
                decided[name] += ok
                cells.append(f"{'decided' if ok else '-':>9} {d.seconds:4.1f} s")
            runs += 1
            print(f"planted d{density:.0%} s{seed:<14} " + " ".join(f"{c:>16}" for c in cells))
    print("\ndecided: " + ", ".join(f"{n} {decided[n]}/{runs}" for n in names))
    if not args.no_scaling:
        scaling(seeds)
    return 0


def scaling(seeds: int, limit: float = 5.0) -> None:
    """The exact search alone on plain tiles without gaps: status, nodes and seconds; and
    MiniMalloc's command line on the same tiles (built by ``peers/build_minimalloc.sh``;
    said so when it is not), which answers only whether they fit their memory."""
    print(f"\n== the exact search alone on plain tiles without gaps, {limit:g} s ==")
    built = MINIMALLOC.is_file()
    if not built:
        print("  (MiniMalloc not built: bash benchmarks/peers/build_minimalloc.sh SRC ABSL)")
    for requests in (100, 150, 200, 300, 500):
        for density in (0.9, 0.95, 1.0):
            cells, peers = [], []
            for seed in range(seeds):
                capture, placement = planted_tile(PlantedRecipe(requests, density, seed, **PLAIN))
                capture, placement = without_gaps(capture, placement)
                assert check(capture, placement).valid, f"{capture.name}: planted placement"
                result = exact_search(Problem(capture), Deadline.start(limit))
                assert result.status != "infeasible", f"WRONG: {capture.name} proven infeasible"
                cells.append(f"{result.status:8} {result.nodes:7} nodes {result.seconds:4.1f} s")
                if built:
                    peers.append(_minimalloc(capture, limit))
            print(f"  {requests:4} requests, {density:.0%}:  " + " | ".join(cells), flush=True)
            if built:
                print(f"  {'':4}   MiniMalloc:  " + " | ".join(peers), flush=True)


def _minimalloc(capture: Capture, limit: float) -> str:
    """MiniMalloc's answer on ``capture`` at its memory's size, and its seconds."""
    with tempfile.TemporaryDirectory(prefix="dense-") as folder:
        source = Path(folder) / "tile.csv"
        source.write_text(plain_csv(capture), encoding="utf-8")
        began = time.monotonic()
        probe = fits_at(MINIMALLOC, source, capture.memory.size, limit)
        seconds = time.monotonic() - began
    assert probe.status != "infeasible", f"WRONG: MiniMalloc proved {capture.name} infeasible"
    return f"{probe.status:8} {'':13} {seconds:4.1f} s"


if __name__ == "__main__":
    sys.exit(main())
