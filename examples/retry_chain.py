"""The seed's first recommendation, as a compiler would wire it in.

Keep every tile that production already fits exactly as it is; only where
production fails, try long-lived-first; and for a tile that still fails, ask
whether it is fragmentation or a capacity deficit before anyone spends a week
on it. Run from the repository root:

    python examples/retry_chain.py examples/0-0.json examples/1-0.json examples/small.json
"""

from __future__ import annotations

import sys

import tilefit


def allocate(path: str) -> str:
    capture = tilefit.read_capture(path)
    result = tilefit.place(capture)  # production first, long-lived/first-fit only on failure
    if result.fits:
        assert result.placement is not None
        assert tilefit.check(capture, result.placement).valid  # the referee agrees
        how = "rescued by" if result.fallback else "kept by production:"
        return f"{capture.name}: placed, {how} {result.strategy}"
    diagnosis = tilefit.diagnose(capture, time_limit=5)
    if diagnosis.capacity is not None:  # the bound that proves it, and its figure
        largest = diagnosis.bound.contributors[0].id
        over = diagnosis.capacity.over_text
        return f"{capture.name}: no placement can exist, {over}; largest there: {largest}"
    return f"{capture.name}: {diagnosis.verdict} ({diagnosis.strategy or 'no strategy'})"


def main(paths: list[str]) -> int:
    for path in paths:
        print(allocate(path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["examples/0-0.json", "examples/1-0.json"]))
