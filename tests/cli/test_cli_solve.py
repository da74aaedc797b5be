"""tilefit solve: JSON keys, exit codes, the placement file, the subset explanation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from search_captures import hard_small_tile

from tilefit.cli import main
from tilefit.formats.load import read_capture, read_placement
from tilefit.formats.save import write_capture
from tilefit.model.capture import Capture, Conflict, Memory, Range, Request
from tilefit.verdicts.check import check


def _write(tmp_path: Path, capture: Capture) -> str:
    path = tmp_path / "tile.json"
    write_capture(capture, path)
    return str(path)


FITS = Capture(
    "fits",
    3,
    Memory(8, (Range(0, 8),)),
    (Request("a", 4, 0, 2), Request("b", 4, 0, 1), Request("c", 4, 1, 2), Request("d", 4, 2, 3)),
)
# Live peak 8 <= 8, but x and y conflict and the memory is one element.
NO_FIT = Capture(
    "nofit",
    2,
    Memory(8, (Range(0, 8),)),
    (Request("x", 2, 0, 1), Request("y", 2, 1, 2), Request("z", 1, 0, 2)),
    conflicts=(Conflict("x", "y"),),
)


def test_solved_json_and_placement_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, FITS)
    out = tmp_path / "p.json"
    assert main(["solve", path, "--json", "-o", str(out)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert list(result)[:3] == ["status", "seconds", "placement"]
    assert result["status"] == "solved"
    assert result["nodes"] >= 0  # the exact search's, 0 when a heuristic route answered
    assert check(read_capture(path), read_placement(out)).valid


def test_node_limit_runs_the_bare_exact_search(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, FITS)
    assert main(["solve", path, "--json", "--node-limit", "1000"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "solved" and result["nodes"] >= 1
    # Deterministic: the same nodes and the same placement each run.
    assert main(["solve", path, "--json", "--node-limit", "1000"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert (again["nodes"], again["placement"]) == (result["nodes"], result["placement"])
    assert main(["solve", _write(tmp_path, NO_FIT), "--json", "--node-limit", "1000"]) == 1
    infeasible = json.loads(capsys.readouterr().out)
    assert infeasible["status"] == "infeasible"
    assert infeasible["irreducible_subset"] == ["x", "y"]


def test_a_node_limit_too_small_times_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The bare search stops at the node limit (here: it may not have placed them all).
    path = _write(tmp_path, FITS)
    assert main(["solve", path, "--json", "--node-limit", "1"]) in (0, 1)
    result = json.loads(capsys.readouterr().out)
    assert result["nodes"] <= 1


def test_node_limit_with_minimize(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, FITS)
    assert main(["solve", path, "--minimize", "--json", "--node-limit", "1000"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["top_lower_bound"], result["best_top"], result["optimal"]) == (8, 8, True)


def test_infeasible_names_the_subset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, NO_FIT)
    assert main(["solve", path, "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "infeasible"
    assert result["placement"] is None
    assert result["irreducible_subset"] == ["x", "y"]
    assert main(["solve", path]) == 1
    text = capsys.readouterr().out
    assert "infeasible" in text
    assert "conflicts y" in text and "[0, 1)" in text


def test_minimize_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, FITS)
    assert main(["solve", path, "--minimize", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "solved"
    assert (result["top_lower_bound"], result["best_top"], result["optimal"]) == (8, 8, True)
    assert main(["solve", path, "--minimize"]) == 0
    assert "lowest memory top: 8 (optimal)" in capsys.readouterr().out


def test_human_output_is_the_same_each_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, NO_FIT)
    main(["solve", path])
    first = capsys.readouterr().out
    main(["solve", path])
    assert capsys.readouterr().out == first


def test_bad_time_limit_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, FITS)
    for command in ("solve", "diagnose"):
        assert main([command, path, "--time-limit", "-1"]) == 2
        assert ">= 0" in capsys.readouterr().err  # the same rule for both
    assert main(["solve", path, "--node-limit", "0"]) == 2


def test_a_zero_time_limit_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # As for diagnose: 0 s is allowed, and a time-out is never taken as infeasible.
    assert main(["solve", _write(tmp_path, NO_FIT), "--json", "--time-limit", "0"]) == 1
    assert json.loads(capsys.readouterr().out)["status"] in ("infeasible", "timeout")


def test_solve_decides_with_the_portfolio_where_the_bare_search_does_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same decider as diagnose: on this tile the annealing route places every
    request at once, while the bare exact search is still looking after 300,000 nodes
    (a node limit, so that this is no race against the clock)."""
    path = _write(tmp_path, hard_small_tile())
    assert main(["solve", path, "--json", "--time-limit", "60", "--node-limit", "300000"]) == 1
    bare = json.loads(capsys.readouterr().out)
    assert (bare["status"], bare["nodes"]) == ("timeout", 300_000)
    assert (
        main(["solve", path, "--json", "--time-limit", "30", "-o", str(tmp_path / "p.json")]) == 0
    )
    assert json.loads(capsys.readouterr().out)["status"] == "solved"
    assert check(read_capture(path), read_placement(tmp_path / "p.json")).valid
    assert main(["diagnose", path, "--json", "--time-limit", "30"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "fragmentation"


def test_the_library_decides_as_the_command_does() -> None:
    """``tilefit.solve`` is the portfolio too; with a node limit, the bare exact search."""
    import tilefit

    capture = hard_small_tile()
    bare = tilefit.solve(capture, time_limit=60, node_limit=300_000)
    assert (bare.status, bare.nodes, bare.placement) == ("timeout", 300_000, None)
    found = tilefit.solve(capture, time_limit=30)
    assert found.status == "solved" and found.placement is not None
    assert check(capture, found.placement).valid
    lowest = tilefit.minimize(capture, time_limit=10)
    assert lowest.placement is not None and check(capture, lowest.placement).valid


def test_minimize_at_the_bound_by_greedy_compiles_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A greedy pass whose top is the aligned lower bound is proven least: no kernel needed
    (the first search after install compiles them for half a minute or more)."""
    import tilefit.search.compiling as compiling
    from tilefit.model.capture import Capture, Memory, Range, Request
    from tilefit.verdicts.solving import solve

    def refuse() -> float:
        raise AssertionError("compiled the kernels for a capture greedy decides")

    monkeypatch.setattr(compiling, "ensure_compiled", refuse)
    requests = (Request("a", 64, 0, 2, 16), Request("b", 32, 1, 3, 16), Request("c", 48, 2, 4, 16))
    capture = Capture("easy", 4, Memory(512, (Range(0, 512),)), requests)
    found = solve(capture, 5.0, minimize=True)
    assert (found.route, found.status, found.nodes) == (None, "solved", 0)
    assert found.strategy is not None  # the greedy pass that placed it, not a search route
    assert found.least is not None and found.least.best_top == 96 and found.least.optimal


LARGE_AT_THE_BOUND = """
import sys
import tilefit
from tilefit.model.capture import Capture, Memory, Range, Request

# 3,000 requests one after another in pairs: a greedy pass reaches the bound.
requests = tuple(Request(f"r{k}", 64, k // 2, k // 2 + 1) for k in range(3000))
capture = Capture("pairs", 1500, Memory(1 << 20, (Range(0, 1 << 20),)), requests)
found = tilefit.solve(capture, time_limit=60, minimize=True)
assert found.least is not None and found.least.optimal and found.least.best_top == 128
print("tilefit.search.portfolio" in sys.modules, "tilefit.engine.uniform_loop" in sys.modules)
"""


def test_a_large_capture_greedy_decides_loads_the_loop_but_not_the_search() -> None:
    """Placed by the compiled loop (a cached one), decided by a greedy pass: the search's
    modules and kernels are not loaded (1.2 s of a 1.7 s answer on a real trace)."""
    import subprocess
    import sys

    from tilefit.search.kernel import jit

    done = subprocess.run(
        [sys.executable, "-c", LARGE_AT_THE_BOUND], capture_output=True, text=True, check=True
    )
    loop = jit.COMPILED  # under TILEFIT_NO_JIT the engine places one by one
    assert done.stdout.split() == ["False", str(loop)], done.stderr
