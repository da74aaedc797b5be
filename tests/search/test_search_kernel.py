"""The kernel runs compiled (numba) or as plain Python: both must search the same tree."""

from __future__ import annotations

import pytest
from jit_helpers import run_script

from tilefit.search.kernel.jit import COMPILED

SCRIPT = """
import json, random
from tilefit.model.capture import Capture, Conflict, Memory, Range, Request
from tilefit.model.deadline import Deadline
from tilefit.search import exact_search
from tilefit.search.problem import Problem
out = []
for seed in range(4):
    rng = random.Random(seed)
    reqs = []
    for k in range(18):
        start = rng.randrange(0, 8)
        reqs.append(Request(f"r{k}", rng.choice((2, 3, 5, 8)), start, start + rng.randrange(1, 4),
                            rng.choice((1, 2, 4)), rng.choice(("default", "scratch"))))
    memory = Memory(40, (Range(0, 30), Range(30, 40, classes=("scratch",))), elements=(0, 16, 32))
    edges = tuple(Conflict(f"r{k}", f"r{k + 5}") for k in range(0, 12, 4))
    cap = Capture("k", 12, memory, tuple(reqs), conflicts=edges)
    r = exact_search(Problem(cap), Deadline.start(60), node_limit=3000)
    out.append([r.status, r.nodes, dict(r.placement.offsets) if r.placement else None])
print(json.dumps(out))
"""


@pytest.mark.skipif(not COMPILED, reason="numba is not installed: only the plain path exists")
def test_plain_python_and_numba_agree_node_for_node() -> None:
    assert run_script(SCRIPT, plain=True) == run_script(SCRIPT, plain=False)
