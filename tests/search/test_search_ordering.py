"""The kernel ranks blocks by the ordering's keys, descending, then by block index."""

from __future__ import annotations

import random

import pytest

from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.search.blocks import build_model
from tilefit.search.exact.solve import KEYS
from tilefit.search.kernel.arrays import free_problem
from tilefit.search.kernel.driver import Run
from tilefit.search.params import ExactParams


def _capture(seed: int) -> Capture:
    rng = random.Random(seed)
    requests = []
    for k in range(24):
        start = rng.randrange(0, 6)
        # Few distinct sizes and lifetimes, so that keys tie and the index decides.
        requests.append(Request(f"r{k}", rng.choice((2, 4)), start, start + rng.randrange(1, 3)))
    return Capture("ranks", 8, Memory(64, (Range(0, 64),)), tuple(requests))


def _expected(capture: Capture, key: str) -> list[int]:
    """Ranks by W (lifetime width), A (width x size), T (largest live total in the lifetime)."""
    live = [sum(r.size for r in capture.requests if r.start <= t < r.end) for t in range(8)]
    facts = {
        "W": [r.end - r.start for r in capture.requests],
        "A": [(r.end - r.start) * r.size for r in capture.requests],
        "T": [max(live[r.start : r.end]) for r in capture.requests],
    }
    n = len(capture.requests)
    order = sorted(range(n), key=lambda i: (*(-facts[c][i] for c in key), i))
    return [order.index(i) for i in range(n)]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("key", ExactParams().orderings)
def test_rank_all_follows_the_ordering_keys(seed: int, key: str) -> None:
    capture = _capture(seed)
    model = build_model(capture)
    problem = free_problem(model, range(len(model.blocks)), {})
    run = Run(problem, [KEYS.index(c) for c in key])
    run.advance(1)  # the kernel ranks every block when it starts
    assert [int(r) for r in run.state.rank] == _expected(capture, key)
