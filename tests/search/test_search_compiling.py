"""The first run after install answers as a warm one: the kernels compile before the limit.

A fresh interpreter with an empty ``NUMBA_CACHE_DIR`` is a fresh install as far as
numba's cache goes. The tile is one that no strategy places, so that ``diagnose``
needs the search; its limit is shorter than the compilation, which used to eat it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from search_captures import hard_small_tile

from tilefit.formats.save import write_capture
from tilefit.search.kernel import jit

COMPILING = "tilefit: compiling the search kernels once"


def _run(args: list[str], cache: Path) -> tuple[dict[str, object], str]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    env.pop("TILEFIT_NO_JIT", None)
    done = subprocess.run(
        [sys.executable, "-m", "tilefit", *args], env=env, capture_output=True, text=True
    )
    assert done.returncode in (0, 1), done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result, done.stderr


@pytest.mark.skipif(not jit.COMPILED, reason="numba is not installed: nothing compiles")
def test_the_first_run_on_an_empty_cache_answers_as_a_warm_one(tmp_path: Path) -> None:
    path = tmp_path / "tile.json"
    write_capture(hard_small_tile(), path)
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    # A limit a loaded machine keeps (at 5 s a busy one's warm run ran out of it): the
    # search answers as soon as it places the tile, well within it on a quiet one.
    command = ["diagnose", str(path), "--json", "--time-limit", "60"]
    cold, said = _run(command, cache)
    assert COMPILING in said and "search kernels compiled in" in said
    assert len(said.strip().splitlines()) == 2  # one line before, one after: nothing more
    assert any(cache.iterdir())  # the compiled kernels were cached
    warm, said_warm = _run(command, cache)
    assert COMPILING not in said_warm
    assert cold["verdict"] == warm["verdict"] == "fragmentation"
    solved, said_solve = _run(["solve", str(path), "--json", "--time-limit", "60"], cache)
    assert COMPILING not in said_solve and solved["status"] == "solved"


def _tilefit(args: list[str], cache: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = dict(os.environ, NUMBA_CACHE_DIR=str(cache), **env)
    if "TILEFIT_NO_JIT" not in env:
        environ.pop("TILEFIT_NO_JIT", None)
    return subprocess.run(
        [sys.executable, "-m", "tilefit", *args], env=environ, capture_output=True, text=True
    )


@pytest.mark.skipif(not jit.COMPILED, reason="numba is not installed: nothing compiles")
def test_tilefit_compile_after_install_leaves_the_first_search_nothing_to_wait_for(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    done = _tilefit(["compile"], cache)
    assert done.returncode == 0, done.stderr
    said = done.stderr.strip()
    assert said.startswith("tilefit: compiling the search kernels (about "), said
    assert said.endswith(" on this machine now)...") and "\n" not in said
    assert done.stdout.startswith("search kernels compiled in ")
    assert f"cached in {cache}" in done.stdout
    again = _tilefit(["compile"], cache)
    assert again.returncode == 0 and again.stderr == ""
    assert again.stdout.startswith("search kernels already compiled, cached in ")
    path = tmp_path / "tile.json"
    write_capture(hard_small_tile(), path)
    first, said = _run(["diagnose", str(path), "--json", "--time-limit", "60"], cache)
    assert said == "" and first["verdict"] == "fragmentation"


def test_tilefit_compile_without_the_compiler_says_there_is_nothing_to_compile(
    tmp_path: Path,
) -> None:
    done = _tilefit(["compile"], tmp_path, TILEFIT_NO_JIT="1")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("nothing to compile: TILEFIT_NO_JIT is set;")
    assert not any(tmp_path.iterdir())


ASIDE = """
from tilefit.search import compiling
from tilefit.search.kernel import branch
from tilefit.search.local import anneal_loop

aside = []
compiling._compile_aside(aside)
assert len(aside) == 1, "no process aside on this machine"
child = aside[0]
child.join()
assert child.exitcode == 0
print(compiling._cached(anneal_loop.iterate), compiling._cached(anneal_loop.settle),
      compiling._cached(branch.run))
"""


@pytest.mark.skipif(not jit.COMPILED, reason="numba is not installed: nothing compiles")
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: the annealing compiles in turn")
def test_the_annealing_compiles_aside_into_the_disk_cache(tmp_path: Path) -> None:
    """On a cold cache the annealing loop compiles in a forked process while this one
    compiles the exact kernel: what it leaves in the disk cache is what the parent loads."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    env.pop("TILEFIT_NO_JIT", None)
    done = subprocess.run(
        [sys.executable, "-c", ASIDE], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["True", "True", "False"]  # the exact kernel is not its


LARGE = """
import tilefit
from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.search.compiling import compilations

# 300 copies of eight lifetimes, one after another, sizes past 2**32: the engine's loop,
# the least rung's probes, and (at the live peak, where no greedy pass fits) the whole
# portfolio in this process, the annealing included.
LIVES = ((2, 4, 7), (3, 6, 7), (4, 7, 8), (1, 3, 8), (3, 2, 6), (2, 2, 5), (1, 0, 4), (4, 5, 8))
UNIT = (1 << 32) + 64
requests = tuple(
    Request(f"r{c}_{k}", s * UNIT, 8 * c + a, 8 * c + b, alignment=64)
    for c in range(300) for k, (s, a, b) in enumerate(LIVES)
)
wide = Capture("large", 2400, Memory(1 << 40, (Range(0, 1 << 40),)), requests)
tight = Capture("large", 2400, Memory(10 * UNIT, (Range(0, 10 * UNIT),)), requests)
tilefit.solve(wide, time_limit=20, minimize=True, workers=1)
tilefit.diagnose(tight, time_limit=10, workers=1)
print(compilations())
"""


@pytest.mark.skipif(not jit.COMPILED, reason="numba is not installed: nothing compiles")
def test_a_capture_of_large_sizes_compiles_nothing_on_a_warm_cache() -> None:
    """Sizes past 2**32 over thousands of requests take every compiled function through
    the same types as the one-request warm-up: after ``tilefit compile`` (the install's
    cache, warm already in CI) nothing compiles again (numba counts its cache misses),
    and nothing says it did."""
    environ = dict(os.environ)
    environ.pop("TILEFIT_NO_JIT", None)
    warm = subprocess.run(
        [sys.executable, "-m", "tilefit", "compile"], env=environ, capture_output=True, text=True
    )
    assert warm.returncode == 0, warm.stderr
    done = subprocess.run(
        [sys.executable, "-c", LARGE], env=environ, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"
    assert "compiled" not in done.stderr and COMPILING not in done.stderr
