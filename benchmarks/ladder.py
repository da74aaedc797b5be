"""diagnose and solve on the same hard tiles: one verdict each, before and after a change.

Run from the repository root:

    .venv/bin/python benchmarks/ladder.py -o after.jsonl              # about 10 minutes on 2 cores
    .venv/bin/python benchmarks/ladder.py -o after.jsonl --compare before.jsonl

The hard tiles of `hard_tiles.py` (both families, `--per-density` of each
density) and of `hard_regimes.py` (`--per-shape` of each shape), and the
infeasible set, each given to `tilefit.diagnose` and to `tilefit.solve` at the
same limit, one after the other. Per tile: both answers, their seconds and
whether they agree (diagnose's `fits`/`fragmentation` is solve's `solved`,
`infeasible` and `capacity` are `infeasible`, `undetermined` is `timeout`).
A decided answer that contradicts the tile's known answer is WRONG. With
`--compare`, a file written by an earlier run (of the same script at another
commit: issue 36's before and after) is read and every tile decided there and
not here, or here and not there, is listed. Needs no optional extra.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from hard_regimes import regime_tiles
from hard_tiles import FAMILIES, density_tiles

import tilefit
from tilefit.generate.infeasible import infeasible_tiles
from tilefit.model.capture import Capture

SOLVE_OF = {
    "fits": "solved",
    "fragmentation": "solved",
    "capacity": "infeasible",
    "infeasible": "infeasible",
    "undetermined": "timeout",
}


def tiles(per_density: int, per_shape: int) -> Iterator[tuple[str, Capture, bool]]:
    """(set, capture, feasible) for every tile, the same for the same arguments."""
    for _, _, hard, _ in density_tiles(list(FAMILIES), per_density, 0):
        for capture in hard:
            yield "hard_tiles", capture, True
    for shape in regime_tiles(per_shape):
        if not isinstance(shape, str):
            capture, _ = shape
            yield "hard_regimes", capture, True
    for kind, capture in infeasible_tiles(0):
        yield f"infeasible:{kind}", capture, False


def run(capture: Capture, feasible: bool, limit: float) -> dict[str, object]:
    d = tilefit.diagnose(capture, time_limit=limit)
    began = time.monotonic()
    s = tilefit.solve(capture, limit)
    solve_seconds = time.monotonic() - began
    verdict, status = str(d.verdict), str(s.status)
    wrong = (verdict in ("capacity", "infeasible") or status == "infeasible") and feasible
    wrong |= (verdict in ("fits", "fragmentation") or status == "solved") and not feasible
    return {
        "tile": capture.name,
        "requests": len(capture.requests),
        "diagnose": verdict,
        "diagnose_seconds": round(d.seconds, 2),
        "route": d.route or d.strategy,
        "solve": status,
        "solve_seconds": round(solve_seconds, 2),
        "agree": SOLVE_OF[verdict] == status,
        "wrong": wrong,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-density", type=int, default=2, help="hard_tiles tiles per density")
    parser.add_argument("--per-shape", type=int, default=1, help="hard_regimes tiles per shape")
    parser.add_argument("--time-limit", type=float, default=5.0, help="seconds per command")
    parser.add_argument("-o", "--output", required=True, help="JSON lines, one per tile")
    parser.add_argument("--compare", help="the JSON lines of an earlier run")
    args = parser.parse_args()
    print(
        f"python {platform.python_version()}, {platform.machine()}; tilefit {tilefit.__version__}; "
        f"{args.time_limit:g} s per command"
    )
    rows = []
    with open(args.output, "w", encoding="utf-8") as out:
        for where, capture, feasible in tiles(args.per_density, args.per_shape):
            row = {"set": where, **run(capture, feasible, args.time_limit)}
            rows.append(row)
            out.write(json.dumps(row) + "\n")
            out.flush()
            mark = "" if row["agree"] else "  (differ)"
            mark += "  !!! WRONG" if row["wrong"] else ""
            print(
                f"{where:22} {row['tile']:30} {row['requests']:5}  diagnose {row['diagnose']:13} "
                f"{row['diagnose_seconds']:5.1f} s  solve {row['solve']:10} "
                f"{row['solve_seconds']:5.1f} s{mark}"
            )
    decided = sum(r["diagnose"] != "undetermined" for r in rows)
    solved = sum(r["solve"] != "timeout" for r in rows)
    print(
        f"\n{len(rows)} tiles: diagnose decided {decided}, solve decided {solved}; "
        f"they differ on {sum(not r['agree'] for r in rows)}; "
        f"wrong verdicts {sum(bool(r['wrong']) for r in rows)}"
    )
    if args.compare:
        compare(rows, Path(args.compare))
    return 0


def compare(rows: list[dict[str, object]], earlier: Path) -> None:
    before = {
        r["tile"]: r for r in map(json.loads, earlier.read_text(encoding="utf-8").splitlines())
    }
    for command, undecided in (("diagnose", "undetermined"), ("solve", "timeout")):
        gained = [r["tile"] for r in rows if r["tile"] in before and r[command] != undecided]
        gained = [t for t in gained if before[t][command] == undecided]
        lost = [r["tile"] for r in rows if r["tile"] in before and r[command] == undecided]
        lost = [t for t in lost if before[t][command] != undecided]
        print(f"{command} against {earlier.name}: decided now only {gained}; lost {lost}")


if __name__ == "__main__":
    sys.exit(main())
