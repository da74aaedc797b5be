"""Captures whose search trees the memory tests pin: splits, conflicts, pinned blocks,
backtracking, infeasibility and node-limit time-outs, all deterministic from a seed."""

from __future__ import annotations

import hashlib
import json
import random

from tilefit.generate.synth import Recipe, make_tile
from tilefit.model.capture import Capture, Conflict, Memory, Range, Request, Sequence
from tilefit.model.deadline import Deadline
from tilefit.search import exact_search
from tilefit.search.blocks import build_model
from tilefit.search.exact.solve import KEYS
from tilefit.search.kernel.arrays import free_problem
from tilefit.search.kernel.driver import Run
from tilefit.search.params import DEFAULT, ExactParams, Prunings, SearchParams
from tilefit.search.problem import Problem


def _kernel_case(seed: int) -> Capture:
    """Classes, alignment, memory elements and conflict edges (as test_search_kernel)."""
    rng = random.Random(seed)
    reqs = []
    for k in range(18):
        start = rng.randrange(0, 8)
        reqs.append(
            Request(
                f"r{k}",
                rng.choice((2, 3, 5, 8)),
                start,
                start + rng.randrange(1, 4),
                rng.choice((1, 2, 4)),
                rng.choice(("default", "scratch")),
            )
        )
    memory = Memory(40, (Range(0, 30), Range(30, 40, classes=("scratch",))), elements=(0, 16, 32))
    edges = tuple(Conflict(f"r{k}", f"r{k + 5}") for k in range(0, 12, 4))
    return Capture(f"kernel-{seed}", 12, memory, tuple(reqs), conflicts=edges)


def _random_case(seed: int, units: int, slack: float) -> Capture:
    """Random lifetimes and sizes at ``slack`` times the live peak (1.0: tight)."""
    rng = random.Random(seed)
    horizon = max(units // 3, 6)
    reqs = []
    for k in range(units):
        start = rng.randrange(horizon)
        end = min(horizon, start + 1 + rng.randrange(6))
        reqs.append(Request(f"r{k}", rng.randint(1, 16), start, end))
    live = [sum(r.size for r in reqs if r.start <= t < r.end) for t in range(horizon)]
    size = int(max(live) * slack)
    return Capture(f"random-{seed}-{units}", horizon, Memory(size, (Range(0, size),)), tuple(reqs))


def _sequence_case(seed: int) -> Capture:
    """A sequence whose members live differently (a pinned block) among free ones."""
    rng = random.Random(seed)
    reqs = [Request("m0", 3, 0, 4), Request("m1", 2, 1, 3)]
    for k in range(14):
        start = rng.randrange(6)
        reqs.append(Request(f"r{k}", rng.randint(1, 6), start, start + 1 + rng.randrange(3)))
    live = [sum(r.size for r in reqs if r.start <= t < r.end) for t in range(8)]
    size = max(live) + 2
    return Capture(
        f"sequence-{seed}",
        8,
        Memory(size, (Range(0, size),)),
        tuple(reqs),
        sequences=(Sequence("s", ("m0", "m1")),),
    )


CASES: dict[str, tuple[Capture, int]] = {
    **{f"kernel-{s}": (_kernel_case(s), 3000) for s in range(4)},
    **{f"slack-{s}": (_random_case(s, 300, 1.1), 20_000) for s in range(2)},
    **{
        f"synth-{s}-{p}": (make_tile(Recipe(pressure=p, requests=150, layers=6, seed=s)), 20_000)
        for s, p in ((1, 0.98), (2, 0.98), (0, 1.0), (5, 0.95), (4, 0.95))
    },
    **{f"sequence-{s}": (_sequence_case(s), 20_000) for s in range(2)},
}
"""name -> (capture, node limit)"""


def outcome(capture: Capture, node_limit: int, params: SearchParams = DEFAULT) -> list[object]:
    """Status, nodes and a digest of the placement (None when there is none)."""
    result = exact_search(
        Problem(capture), Deadline.start(600), node_limit=node_limit, params=params
    )
    digest = None
    if result.placement is not None:
        text = json.dumps(sorted(result.placement.offsets.items()))
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    return [result.status, result.nodes, digest]


def trajectory(
    capture: Capture, nodes: int, step: int = 97, params: SearchParams = DEFAULT
) -> list[object]:
    """Per ordering, the run's status and partial placement every ``step`` nodes, digested:
    two searches with the same digests went through the same tree in the same order."""
    model = build_model(capture)
    free = [k for k in range(len(model.blocks)) if k not in set(model.pinned)]
    problem = free_problem(model, free, {}, params.prunings)
    out: list[object] = []
    for key in params.exact.orderings:
        run = Run(problem, [KEYS.index(c) for c in key], params.exact)
        seen = hashlib.sha256()
        budget = 0
        status = run.status
        while budget < nodes:
            budget += step
            status = run.advance(budget)
            seen.update(repr((status, run.nodes, [int(x) for x in run.state.off])).encode())
            if status != 0:  # not RUNNING
                break
        out.append([status, run.nodes, seen.hexdigest()[:16]])
    return out


if __name__ == "__main__":  # print the outcomes, to pin them in test_search_growth
    pinned = {
        name: [outcome(c, n), trajectory(c, n)]
        for name, (c, n) in CASES.items()
        if not build_model(c).pinned
    }
    print(json.dumps(pinned))


STRETCH = SearchParams(prunings=Prunings(stretch=True))
"""The kernel with the stretch bound on."""

LEAST_ROOM = SearchParams(exact=ExactParams(copy_limit=0, trail_start=0))
"""Every child list built in place; the trail starts at one step's room."""
