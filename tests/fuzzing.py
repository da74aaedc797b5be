"""Hypothesis settings and mutations shared by the fuzz tests (tests/project/test_fuzz.py)
and the edits files' (tests/verdicts/test_whatif.py)."""

from __future__ import annotations

import copy
import os
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("TILEFIT_FUZZ_EXAMPLES", "25"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=EXAMPLES <= 25,  # CI: the same inputs every run
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

ODD_VALUES = st.sampled_from(
    [
        None,
        True,
        "",
        "x",
        -1,
        0,
        1,
        2**31,
        2**62 - 1,
        2**62,
        2**70,
        -(2**63),
        1.5,
        float("nan"),
        [],
        {},
        [[[[[[]]]]]],
        {"k": 1},
        "lifetime/first-fit",
        "c",
    ]
)


def _odd(draw: st.DrawFn) -> Any:
    """An odd value, copied: the sampled lists and dicts are shared between examples,
    and a later mutation must not change what the next example draws."""
    return copy.deepcopy(draw(ODD_VALUES))


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for k, value in enumerate(node):
            out += _paths(value, (*prefix, k))
    return out


@st.composite
def mutated(draw: st.DrawFn, base: dict[str, Any]) -> Any:
    doc: Any = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(doc)
        path = draw(st.sampled_from(paths))
        action = draw(st.sampled_from(["replace", "delete", "extra", "nest"]))
        if not path:
            if action == "replace":
                doc = _odd(draw)
            continue
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        if action == "replace":
            parent[last] = _odd(draw)
        elif action == "delete":
            del parent[last]
        elif action == "extra" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["extra", "sizes", "id", "end"]))] = _odd(draw)
        elif action == "nest":
            parent[last] = [parent[last]]
    return doc
