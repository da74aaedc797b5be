"""A benchmark whose peer is not installed says which extra brings it, in one line."""

from __future__ import annotations

import re
import subprocess
import sys

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
