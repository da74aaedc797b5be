"""A benchmark whose peer is not installed says which extra brings it, in one line."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from checkout import ROOT

BENCHMARKS = sorted((ROOT / "benchmarks").glob("*.py"))
NEEDS_ORTOOLS = [
    p.name for p in BENCHMARKS if re.search(r"tilefit\.search\.cpsat|ortools", p.read_text())
]

# Runs a benchmark as `python benchmarks/NAME.py` would, with ortools made unimportable.
WITHOUT_ORTOOLS = """
import runpy, sys
sys.modules["ortools"] = None
sys.path.insert(0, "benchmarks")
sys.argv = [sys.argv[1]]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_the_benchmarks_that_need_ortools_are_found() -> None:
    assert {"hard_tiles.py", "hard_regimes.py"} <= set(NEEDS_ORTOOLS)


@pytest.mark.parametrize("name", NEEDS_ORTOOLS)
def test_without_ortools_a_benchmark_says_which_extra_to_install(name: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_ORTOOLS, f"benchmarks/{name}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"benchmarks/{name} needs ortools: pip install 'tilefit[bench]'\n"
    assert result.stdout == ""


def _tilefit_imports(path: Path) -> list[tuple[str, str]]:
    """Each ``from tilefit... import name`` of a script, as (module, name)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tilefit")
        for alias in node.names
    ]


@pytest.mark.parametrize("path", BENCHMARKS, ids=lambda p: p.name)
def test_every_name_a_benchmark_takes_from_tilefit_is_there(path: Path) -> None:
    # A benchmark is run by hand, seldom: a name moved inside the package must not strand it.
    for module, name in _tilefit_imports(path):
        found = importlib.import_module(module)
        assert hasattr(found, name) or _submodule(found, name), (
            f"{path.name}: {name} is not in {module}"
        )


def _submodule(package: ModuleType, name: str) -> bool:
    return (
        hasattr(package, "__path__")
        and importlib.util.find_spec(f"{package.__name__}.{name}") is not None
    )


def test_a_name_moved_away_is_found(tmp_path: Path) -> None:
    script = tmp_path / "stale.py"
    script.write_text("from tilefit.search.exact.solve import exact_search\n")
    assert _tilefit_imports(script) == [("tilefit.search.exact.solve", "exact_search")]
    with pytest.raises(AssertionError, match="exact_search is not in"):
        test_every_name_a_benchmark_takes_from_tilefit_is_there(script)
