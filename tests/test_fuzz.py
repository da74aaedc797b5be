"""Issue 13: fuzzing. Mutated captures, placements and CSVs through every command.

Each run either gives a result (exit 0 or 1, no traceback) or is bad input:
exit 2 with exactly one line ``tilefit: ...`` on stderr. The commands run in
process (``tilefit.cli.main``), so an uncaught exception fails the test.

CI runs a small fixed budget. For a long local run::

    TILEFIT_FUZZ_EXAMPLES=2500 .venv/bin/python -m pytest tests/test_fuzz.py   # 10,000 inputs
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tilefit.cli import main

EXAMPLES = int(os.environ.get("TILEFIT_FUZZ_EXAMPLES", "25"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=EXAMPLES <= 25,  # CI: the same inputs every run
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

CAPTURE: dict[str, Any] = {
    "format": "tilefit-capture",
    "version": 1,
    "name": "fz",
    "tile": 0,
    "horizon": 10,
    "memory": {
        "size": 128,
        "elements": [0, 64],
        "interleaved_offset": 96,
        "ranges": [
            {"start": 0, "end": 112, "name": "main"},
            {"start": 112, "end": 128, "classes": ["scratch"]},
        ],
    },
    "requests": [
        {"id": "a", "size": 16, "alignment": 8, "start": 0, "end": 10, "class": "resident"},
        {"id": "b", "size": 16, "alignment": 8, "start": 0, "end": 10, "class": "resident"},
        {"id": "c", "size": 32, "start": 2, "end": 6},
        {"id": "s", "size": 8, "start": 3, "end": 5, "class": "scratch"},
        {"id": "i", "size": 8, "start": 1, "end": 4, "interleaved": True},
    ],
    "sequences": [{"id": "S", "members": ["a", "b"]}],
    "conflicts": [["S", "c"]],
    "production": ["lifetime/first-fit", "alignment/first-fit"],
    "observed": {"failed": "c"},
}
PLACEMENT: dict[str, Any] = {
    "format": "tilefit-placement",
    "version": 1,
    "capture": "fz",
    "offsets": {"a": 0, "b": 16, "c": 32, "s": 112, "i": 96},
}
CSV = "id,lower,upper,size,alignment\na,0,4,16,8\nb,1,3,8,1\nc,2,6,32,4\n"
PLACED_CSV = "id,lower,upper,size,offset\na,0,4,16,0\nb,1,3,8,16\n"

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


def _text(doc: Any) -> str:
    return json.dumps(doc, allow_nan=True)


@st.composite
def damaged_text(draw: st.DrawFn, text: str) -> str:
    how = draw(st.sampled_from(["truncate", "bytes", "deep", "splice"]))
    if how == "truncate":
        return text[: draw(st.integers(0, len(text)))]
    if how == "bytes":
        return draw(st.text(max_size=200))
    if how == "deep":
        depth = draw(st.sampled_from([10, 1000, 100_000]))
        return "[" * depth + "]" * draw(st.sampled_from([0, depth]))
    at = draw(st.integers(0, len(text)))
    return (
        text[:at] + draw(st.sampled_from(["9" * 5000, "-", "\x00", '"', "}", "1e999"])) + text[at:]
    )


def _run(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


def _commands(capture: str, placement: str, tmp: str) -> list[list[str]]:
    return [
        ["bound", capture, "--json"],
        ["replay", capture],
        ["place", capture, "--json"],
        ["experiment", capture, "--json"],
        ["diagnose", capture, "--time-limit", "0.2", "--workers", "1", "-o", f"{tmp}/p.json"],
        ["solve", capture, "--time-limit", "0.2", "--json"],
        ["check", capture, placement, "--json"],
        ["convert", capture, "-o", f"{tmp}/out.json"],
        ["plot", capture, "--profile", "--time-limit", "0.2", "-o", f"{tmp}/map.svg"],
        ["plot", capture, "--placement", placement, "--time-limit", "0.2", "-o", f"{tmp}/p.svg"],
        ["report", capture, "--time-limit", "0.2", "-o", f"{tmp}/report.html"],
    ]


def _assert_clean(argv: list[str], code: int, err: str) -> None:
    assert "Traceback" not in err, (argv, err)
    assert code in (0, 1, 2), (argv, code, err)
    if code == 2:
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("tilefit: "), (argv, err)


def _every_command(capture_text: str, placement_text: str, suffix: str = ".json") -> None:
    with TemporaryDirectory() as tmp:
        capture = Path(tmp) / f"fz.64{suffix}"
        placement = Path(tmp) / f"fz.placement{suffix}"
        capture.write_text(capture_text, encoding="utf-8")
        placement.write_text(placement_text, encoding="utf-8")
        for argv in _commands(str(capture), str(placement), tmp):
            code, err = _run(argv)
            _assert_clean(argv, code, err)


@FUZZ
@given(mutated(CAPTURE))
def test_mutated_captures(doc: Any) -> None:
    _every_command(_text(doc), _text(PLACEMENT))


@FUZZ
@given(mutated(PLACEMENT))
def test_mutated_placements(doc: Any) -> None:
    _every_command(_text(CAPTURE), _text(doc))


@FUZZ
@given(st.one_of(damaged_text(_text(CAPTURE)), damaged_text(CSV)))
def test_damaged_text(text: str) -> None:
    _every_command(text, _text(PLACEMENT))
    _every_command(text, PLACED_CSV, suffix=".csv")


@st.composite
def mutated_csv(draw: st.DrawFn) -> str:
    rows = [line.split(",") for line in CSV.splitlines()]
    for _ in range(draw(st.integers(1, 3))):
        r = draw(st.integers(0, len(rows) - 1))
        c = draw(st.integers(0, len(rows[r]) - 1))
        rows[r][c] = draw(
            st.sampled_from(["", "x", "-1", "0", str(2**62), str(2**70), "1.5", "upper", "a"])
        )
        if draw(st.booleans()):
            rows[r].append("7")
    return "\n".join(",".join(row) for row in rows) + "\n"


@FUZZ
@given(mutated_csv())
def test_mutated_csv(text: str) -> None:
    _every_command(text, PLACED_CSV, suffix=".csv")
