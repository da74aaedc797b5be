"""How far past `--time-limit` the whole process of `diagnose` and `solve` runs (issue 19).

Run from the repository root (after `pip install -e '.[test]'`):

    .venv/bin/python benchmarks/time_limit.py                  # 5 tiles, T = 10 s: ~2 minutes
    .venv/bin/python benchmarks/time_limit.py --time-limit 60 --tiles 2
    .venv/bin/python benchmarks/time_limit.py --workers 1 --family scattered --requests 3000
    .venv/bin/python benchmarks/time_limit.py --tiles 0 --buffers 100000 \
        --trace ../shared/traces/pangu_2.6B.csv --trace ../shared/traces/S_1.csv

The tiles are planted (`tilefit.generate.planted`) at 95% density, about 900
requests, on which the production replay and all 16 strategies fail and the
search stays undecided: the case where every second of the limit is spent.
`--family scattered` draws `tilefit.generate.scattered` tiles instead, and
`--requests` their size; `--workers 1` runs the search's members in turn in
one process, as `tilefit batch`'s workers do.
Each command runs as a user runs it, `python -m tilefit CMD TILE --time-limit T
--json` in a fresh process, and the wall clock is taken around the whole
process; the overrun is that minus T (target: at most 0.5 s). The kernels are
compiled first (`tilefit compile`), so that the runs measure a warm install.

Real programs too (issue 37): `--trace CSV` (a MiniMalloc CSV such as those of
`../shared/traces/`, repeatable) and `--buffers N` (a trace of N buffers with
real-looking lifetimes, made here) are given a memory of their live peak, the
tightest that may fit, so that every stage runs: the production replay, the
greedy passes, the search and the closest placement, each under the one limit.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tilefit.formats.save import write_capture
from tilefit.generate.planted import PlantedRecipe, planted_tile
from tilefit.generate.scattered import ScatteredRecipe, scattered_tile
from tilefit.model.capture import Capture
from tilefit.verdicts.experiment import experiment

TARGET = 0.5


def draw(family: str, requests: int, seed: int) -> Capture:
    """A 95% tile of the family."""
    if family == "scattered":
        return scattered_tile(ScatteredRecipe(requests, 0.95, seed))[0]
    return planted_tile(PlantedRecipe(requests=requests, density=0.95, seed=seed))[0]


def hard_tiles(count: int, folder: Path, family: str, requests: int) -> list[Path]:
    """95% tiles of the family that no strategy places, written to ``folder``."""
    paths: list[Path] = []
    for seed in range(10 * count):
        if len(paths) >= count:
            break
        capture = draw(family, requests, seed)
        if any(row.fits for row in experiment(capture)):
            continue
        path = folder / f"{family}95_{seed}.json"
        write_capture(capture, path)
        paths.append(path)
    return paths


def traces(paths: list[str], buffers: int, folder: Path) -> list[Path]:
    """Each trace named with a capacity of its live peak (``NAME.CAPACITY.csv``, a link in
    ``folder``), and one of ``buffers`` made-up buffers when asked."""
    named: list[Path] = []
    for given in paths:
        source = Path(given).resolve()
        peak = _peak(source.read_text(encoding="utf-8"))
        link = folder / f"{source.stem}.{peak}.csv"
        link.symlink_to(source)
        named.append(link)
    if buffers:
        text = _made_up(buffers)
        path = folder / f"made{buffers}.{_peak(text)}.csv"
        path.write_text(text, encoding="utf-8")
        named.append(path)
    return named


def _peak(text: str) -> int:
    from tilefit.bounds.live import live_peak, request_spans
    from tilefit.formats.minimalloc import capture_from_csv

    capture = capture_from_csv(text, "trace.csv", 1 << 60)
    return live_peak(request_spans(capture.requests))[0]


def _made_up(count: int, seed: int = 0) -> str:
    """A program's buffers: most live a few steps, some through a long stretch, a few for
    the whole run (weights); sizes from 64 B to 4 MB, multiples of 64."""
    import random

    rng = random.Random(seed)
    horizon = max(16, count // 4)
    rows = ["id,lower,upper,size"]
    for k in range(count):
        kind = rng.random()
        start = 0 if kind < 0.02 else rng.randrange(horizon)
        length = horizon if kind < 0.02 else 1 + int(rng.expovariate(1 / (60 if kind < 0.1 else 4)))
        size = 64 * max(1, int(2 ** rng.uniform(0, 16)))
        rows.append(f"b{k},{start},{min(horizon, start + length)},{size}")
    return "\n".join(rows) + "\n"


def run(command: str, path: Path, limit: float, workers: list[str]) -> tuple[float, str]:
    """The wall-clock seconds of the whole process, and its answer."""
    started = time.monotonic()
    done = subprocess.run(
        [
            *(sys.executable, "-m", "tilefit", command, str(path)),
            *("--time-limit", str(limit), "--json", *workers),
        ],
        capture_output=True,
        text=True,
    )
    wall = time.monotonic() - started
    out = json.loads(done.stdout)
    return wall, str(out.get("verdict", out.get("status")))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiles", type=int, default=5, help="hard tiles")
    parser.add_argument("--time-limit", type=float, default=10.0, help="T, in seconds")
    parser.add_argument("--family", choices=("planted", "scattered"), default="planted")
    parser.add_argument("--requests", type=int, default=900, help="requests asked per tile")
    parser.add_argument("--workers", type=int, help="the commands' --workers (default theirs)")
    parser.add_argument("--trace", action="append", default=[], help="a MiniMalloc CSV trace")
    parser.add_argument("--buffers", type=int, default=0, help="a made-up trace of N buffers")
    args = parser.parse_args()
    workers = [] if args.workers is None else ["--workers", str(args.workers)]
    with tempfile.TemporaryDirectory() as folder:
        paths = hard_tiles(args.tiles, Path(folder), args.family, args.requests)
        paths += traces(args.trace, args.buffers, Path(folder))
        subprocess.run([sys.executable, "-m", "tilefit", "compile"], capture_output=True)
        worst = 0.0
        for path in paths:
            for command in ("diagnose", "solve"):
                wall, answer = run(command, path, args.time_limit, workers)
                over = wall - args.time_limit
                worst = max(worst, over)
                print(f"{command:8} {path.name:20} {answer:12} {wall:6.2f} s  over {over:+.2f} s")
    verdict = "met" if worst <= TARGET else "NOT met"
    print(f"largest overrun {worst:+.2f} s (target: at most {TARGET} s): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
