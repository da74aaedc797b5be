"""A placement at a given top, window by window (issue 49's experiment on real traces).

Run from the repository root:

    .venv/bin/python benchmarks/window_chain.py S_1 --top 1498635932 --anchor 18935 20984
    .venv/bin/python benchmarks/window_chain.py pangu_2.6B --top 5530099775 --anchor 3000 8000

The exact search places every request alive in the anchor window [a, b) below ``--top``
(each cut to the window), then the windows of ``--step`` steps to its right and to its
left, one after another, each with the requests already placed that live into it fixed at
their offsets (a block whose one valid base is its offset). A window the search does not
settle in ``--seconds`` is halved and its halves tried in turn. The placement, once every
request has an offset, is judged by tilefit's referee (``tilefit.verdicts.check``) on the
trace in a memory of ``--top`` bytes, and written with ``-o``. No window is revisited, so a
failure proves nothing: the offsets an earlier window chose may be what fails a later one.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

from tilefit.formats.minimalloc import capture_from_csv
from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.model.deadline import Deadline
from tilefit.model.placement import Placement
from tilefit.search.blocks import build_model
from tilefit.search.exact.solve import Budget, search_model
from tilefit.verdicts.check import check

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "traces"
SMALLEST = 8  # steps: a window this short is not halved again


def _place(
    capture: Capture, top: int, lo: int, hi: int, offsets: dict[str, int], secs: float
) -> bool:
    """Every request alive in [lo, hi) placed below ``top`` around those in ``offsets``."""
    live = [r for r in capture.requests if r.start < hi and lo < r.end and r.size > 0]
    cut = tuple(Request(r.id, r.size, max(r.start, lo) - lo, min(r.end, hi) - lo) for r in live)
    window = Capture("window", hi - lo, Memory(top, (Range(0, top),)), cut)
    model = build_model(window)
    blocks = tuple(
        block if block.id not in offsets else replace(block, bases=((offsets[block.id],) * 2,))
        for block in model.blocks
    )
    model = replace(model, blocks=blocks)
    began = time.monotonic()
    outcome = search_model(model, Budget(Deadline.start(secs)))
    fixed = sum(1 for r in cut if r.id in offsets)
    print(
        f"  [{lo},{hi}) {len(cut):>6,} requests, {fixed:>6,} fixed: {outcome.status} "
        f"{time.monotonic() - began:.1f} s",
        flush=True,
    )
    if outcome.bases is not None:
        offsets.update(model.offsets(outcome.bases))
        return True
    if outcome.status == "timeout" and hi - lo > SMALLEST:
        mid = (lo + hi) // 2
        return _place(capture, top, lo, mid, offsets, secs) and _place(
            capture, top, mid, hi, offsets, secs
        )
    return False


def _windows(anchor: tuple[int, int], step: int, horizon: int) -> list[tuple[int, int]]:
    a, b = anchor
    right = [(lo, min(lo + step, horizon)) for lo in range(b, horizon, step)]
    left = [(max(0, hi - step), hi) for hi in range(a, 0, -step)]
    return [anchor, *right, *left]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", help="a trace name of ../shared/traces")
    parser.add_argument("--top", type=int, required=True, help="the memory top to place below")
    parser.add_argument("--anchor", type=int, nargs=2, required=True, metavar=("A", "B"))
    parser.add_argument("--step", type=int, default=1500, help="steps per window (1500)")
    parser.add_argument("--seconds", type=float, default=30.0, help="per window (30)")
    parser.add_argument("-o", type=Path, help="write the placement (id,offset CSV)")
    args = parser.parse_args()
    path = SHARED / f"{args.trace}.csv"
    if not path.is_file():
        print(f"no trace: {path} is absent", file=sys.stderr)
        return 0
    capture = capture_from_csv(path.read_text(), path.name, args.top)
    offsets: dict[str, int] = {}
    began = time.monotonic()
    print(f"{args.trace}: {len(capture.requests):,} requests below {args.top:,} B")
    for lo, hi in _windows(tuple(args.anchor), args.step, capture.horizon):
        if not _place(capture, args.top, lo, hi, offsets, args.seconds):
            print(
                f"failed at [{lo},{hi}), {len(offsets):,} placed, {time.monotonic() - began:.0f} s"
            )
            return 1
    placement = Placement(capture.name, {r.id: offsets[r.id] for r in capture.requests})
    verdict = check(capture, placement)
    print(
        f"placed {len(offsets):,} in {time.monotonic() - began:.0f} s; "
        f"referee: {'valid' if verdict.valid else 'INVALID'}"
    )
    if args.o is not None:
        rows = "".join(f"{r.id},{offsets[r.id]}\n" for r in capture.requests)
        args.o.write_text("id,offset\n" + rows)
    return 0 if verdict.valid else 1


if __name__ == "__main__":
    sys.exit(main())
