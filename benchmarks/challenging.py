"""Exact search on MiniMalloc's eleven "challenging" instances, and infeasibility proofs.

Run from the repository root:

    .venv/bin/python benchmarks/challenging.py [--time-limit S] [--only A,B,...]
    .venv/bin/python benchmarks/challenging.py --without dominance+twin   # prunings off

Per instance it prints the search's status, seconds and nodes, and the lowest
peak address that the best allocator of the `omnimalloc` package reaches in
the same run (capacity 1,048,576). Then it proves infeasible some instances
whose live peak is at or below their capacity: small built ones (alignment,
bank conflicts, the interleaved region, a contiguous sequence), and the
challenging instances whose live peak is below 1,048,576, at a capacity equal
to their live peak (where the live-peak bound proves nothing). `--without`
switches prunings of the exact kernel off (`tilefit.search.params.Prunings`,
joined by '+'), to measure what each earns on these instances.

The instances are read from ../shared/benchmarks/minimalloc/challenging/ next
to the repository; without that folder the benchmark says so and stops.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

from needs import INSTALL

from tilefit.bounds.deficit import bound
from tilefit.formats.load import read_capture
from tilefit.model.capture import Capture, Conflict, Memory, Range, Request, Sequence
from tilefit.model.deadline import Deadline
from tilefit.search import exact_search
from tilefit.search.params import Prunings, SearchParams
from tilefit.search.problem import Problem
from tilefit.verdicts.check import check

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "benchmarks" / "minimalloc"
CAPACITY = 1_048_576
ALLOCATORS = (
    "omni",
    "greedy_by_all",
    "telamalloc",
    "supermalloc",
    "hill_climb",
    "simulated_annealing",
    "tabu_search",
)
"""The omnimalloc allocators compared (the genetic one needs an extra package)."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per search")
    parser.add_argument("--only", default="", help="comma-separated instance names, e.g. A,K")
    parser.add_argument("--no-omnimalloc", action="store_true", help="skip the allocators")
    parser.add_argument(
        "--without",
        default="",
        help="prunings of the exact kernel switched off, joined by '+' (dominance, "
        "decomposition, twin)",
    )
    args = parser.parse_args()
    folder = SHARED / "challenging"
    if not folder.is_dir():
        print(f"skipped: {folder} not found (the shared benchmark instances are not here)")
        return 0
    names = [n for n in args.only.split(",") if n] or sorted(
        p.name[0] for p in folder.glob("*.csv")
    )
    off = [n for n in args.without.split("+") if n]
    try:
        params = SearchParams(prunings=replace(Prunings(), **dict.fromkeys(off, False)))
    except TypeError:
        parser.error(f"--without: not a pruning in {args.without!r}")
    started = time.monotonic()
    exact_search(_capture("warm-up", [Request("a", 1, 0, 1)], Memory(1, (Range(0, 1),))), 60.0)
    kernel = "numba" if _compiled() else "plain Python"
    print(
        f"search: {kernel} (ready in {time.monotonic() - started:.2f} s, not counted below); "
        f"time limit {args.time_limit:g} s; prunings off: {', '.join(off) or 'none'}"
    )
    print()
    print("instance  requests  status      seconds     nodes  omnimalloc best (peak / capacity)")
    for name in names:
        capture = read_capture(folder / f"{name}.{CAPACITY}.csv")
        result = exact_search(Problem(capture), Deadline.start(args.time_limit), params=params)
        if result.placement is not None and not check(capture, result.placement).valid:
            raise SystemExit(f"{name}: the checker rejects the placement found")
        omni = "-" if args.no_omnimalloc else _omnimalloc(capture)
        print(
            f"{name:<8}  {len(capture.requests):>8}  {result.status:<10}  "
            f"{result.seconds:>7.2f}  {result.nodes:>8}  {omni}"
        )
    print()
    print("infeasible with live peak <= capacity")
    print("instance             peak  capacity  status      seconds     nodes")
    for label, capture in _infeasible_cases(folder, names):
        peak = bound(capture).lower_bound
        result = exact_search(Problem(capture), Deadline.start(args.time_limit), params=params)
        print(
            f"{label:<16} {peak:>8}  {capture.memory.size:>8}  {result.status:<10}  "
            f"{result.seconds:>7.2f}  {result.nodes:>8}"
        )
    return 0


def _compiled() -> bool:
    from tilefit.search.kernel.jit import COMPILED

    return COMPILED


def _omnimalloc(capture: Capture) -> str:
    try:
        import omnimalloc as om
    except ImportError:
        return f"omnimalloc not installed ({INSTALL})"
    allocations = [
        om.Allocation(id=r.id, size=r.size, start=r.start, end=r.end) for r in capture.requests
    ]
    best: tuple[int, str, float] | None = None
    for name in ALLOCATORS:
        started = time.monotonic()
        try:
            placed = om.allocate(allocations, name)
        except Exception as error:  # one allocator failing must not hide the others
            print(f"  ({name}: {type(error).__name__})", file=sys.stderr)
            continue
        peak = max(a.offset + a.size for a in placed)
        if best is None or peak < best[0]:
            best = (peak, name, time.monotonic() - started)
    if best is None:
        return "no allocator ran"
    peak, name, seconds = best
    over = 100 * (peak - capture.memory.size) / capture.memory.size
    return f"{name}: {peak} / {capture.memory.size} ({over:+.1f}%, {seconds:.2f} s)"


def _infeasible_cases(folder: Path, names: list[str]) -> list[tuple[str, Capture]]:
    cases: list[tuple[str, Capture]] = []
    # Alignment gaps: peak 8 of 8, but 4-byte alignment leaves no room.
    aligned = [Request("a", 3, 0, 1, 4), Request("b", 3, 0, 1, 4), Request("c", 2, 0, 1, 4)]
    cases.append(("aligned-8", _capture("aligned-8", aligned, Memory(8, (Range(0, 8),)))))
    # Bank conflicts: peak 96 of 128, but the partners need separate elements.
    banks = Memory(128, (Range(0, 128),), elements=(0, 64))
    conflicted = [
        Request("w", 40, 0, 2),
        Request("x", 40, 1, 3),
        Request("y", 16, 0, 3),
        Request("z", 40, 2, 4),
    ]
    edges = (Conflict("w", "x"), Conflict("x", "z"), Conflict("w", "z"))
    cases.append(("banks-128", _capture("banks-128", conflicted, banks, edges)))
    # Interleaved region: two 20-byte interleaved buffers need 40 of its 32 bytes.
    split = Memory(64, (Range(0, 64),), interleaved_offset=32)
    wide = [
        Request("v", 20, 0, 2, interleaved=True),
        Request("u", 20, 1, 3, interleaved=True),
        Request("k", 8, 0, 3),
    ]
    cases.append(("interleaved-64", _capture("interleaved-64", wide, split)))
    # Contiguity: the sequence's middle member splits the free space x needs.
    seq = [Request("m0", 4, 0, 1), Request("m1", 4, 0, 2), Request("m2", 4, 0, 1)]
    seq.append(Request("x", 6, 1, 2))
    contiguous = replace(
        _capture("sequence-12", seq, Memory(12, (Range(0, 12),))),
        sequences=(Sequence("s", ("m0", "m1", "m2")),),
    )
    cases.append(("sequence-12", contiguous))
    # Challenging instances whose live peak is below the capacity, at capacity = peak.
    for name in names:
        capture = read_capture(folder / f"{name}.{CAPACITY}.csv")
        peak = bound(capture).lower_bound
        if peak < CAPACITY:
            memory = Memory(peak, (Range(0, peak),))
            cases.append((f"{name}@peak", replace(capture, name=f"{name}@{peak}", memory=memory)))
    return cases


def _capture(
    name: str, requests: list[Request], memory: Memory, conflicts: tuple[Conflict, ...] = ()
) -> Capture:
    horizon = max(r.end for r in requests)
    return Capture(name, horizon, memory, tuple(requests), conflicts=conflicts)


if __name__ == "__main__":
    sys.exit(main())
