"""Issue 48, start-up: a command loads what it uses and nothing else.

Compiler integrations call tilefit once per model or per program, so every module a
command loads without needing it is paid on every call. The light commands' imports
are pinned here (in a fresh interpreter each, as the console script runs them); the
whole-process times are measured by ``benchmarks/startup.py``, not here.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

import pytest
from checkout import ROOT

from tilefit.cli import COMMANDS, build_parser

EXAMPLE = "examples/0-0.json"  # decided by the replay: no search runs

# Libraries that a light command must not load, each with what it is for.
HEAVY = {
    "numba": "the search's kernels",
    "llvmlite": "numba's compiler",
    "scipy": "the choice proof's HiGHS",
    "ortools": "route cpsat",
    "matplotlib": "plots",
    "sqlite3": "batch's results",
    "multiprocessing": "batch's and the portfolio's workers",
    "concurrent": "the portfolio's workers",
    "jsonschema": "the tests' schema checks",
}


def _loaded(argv: list[str]) -> set[str]:
    """The modules loaded by running ``tilefit ARGV`` to its end in a fresh interpreter,
    through ``tilefit.__main__`` as the console script does (its ``entry`` without the
    quick exit, which would end the probe before it looks)."""
    probe = (
        "import sys, io, contextlib\n"
        "import tilefit.__main__\n"
        "from tilefit.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        main({argv!r})\n"
        "    except SystemExit:\n"
        "        pass\n"
        "names = sorted(sys.modules)\n"
        "print(' '.join(names))\n"
    )
    return set(_printed(probe).splitlines()[-1].split())


def _printed(probe: str) -> str:
    """What the Python code ``probe`` prints, run in a fresh interpreter at the checkout."""
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return done.stdout


def _heavy(loaded: set[str]) -> dict[str, str]:
    return {name: why for name, why in HEAVY.items() if name in loaded}


def test_version_loads_no_command_and_no_library() -> None:
    loaded = _loaded(["--version"])
    ours = {m for m in loaded if m.startswith("tilefit")}
    assert ours == {
        "tilefit",
        "tilefit.__main__",
        "tilefit.cli",
        "tilefit.model",
        "tilefit.model.errors",
    }
    # Not even the commands' shared helpers, nor the standard library's heavier parts.
    for name in ("numpy", "dataclasses", "json", "pathlib", "typing", "difflib", *HEAVY):
        assert name not in loaded, name


def test_a_command_loads_its_own_module_only() -> None:
    loaded = _loaded(["bound", EXAMPLE])
    commands = {m for m in loaded if m.startswith("tilefit.cli.") and m != "tilefit.cli.common"}
    assert commands == {"tilefit.cli.bound"}


@pytest.mark.parametrize(
    "argv",
    [
        ["bound", EXAMPLE],
        ["bound", EXAMPLE, "--json"],
        ["diagnose", EXAMPLE],
        ["diagnose", EXAMPLE, "--json"],
        ["replay", EXAMPLE],
        ["experiment", EXAMPLE],
        ["convert", EXAMPLE, "-o", "/dev/null"],
    ],
    ids=lambda argv: " ".join(argv[:2] + argv[3:]),
)
def test_light_commands_load_no_heavy_library(argv: list[str]) -> None:
    assert _heavy(_loaded(argv)) == {}


def test_place_and_check_load_no_heavy_library(tmp_path: Path) -> None:
    placement = tmp_path / "p.json"
    assert _heavy(_loaded(["place", "examples/small.json", "-o", str(placement)])) == {}
    assert placement.exists()
    assert _heavy(_loaded(["check", "examples/small.json", str(placement)])) == {}


# Modules a plain capture's bound, diagnose and solve never use, each with why it stays
# unloaded (issue 48, item 1: each was loaded once, 0.3-25 ms of a 100-180 ms command).
UNUSED = {
    "tilefit.toolchains": "a toolchain's import: only a capture it made is told in its words",
    "numpy.ma": "np.unique asks it; tilefit.model.distinct sorts instead",
    "numpy.typing": "type hints only",
    "statistics": "one median",
    "pkgutil": "the search routes are named, not discovered",
    "fractions": "the matrix's weighted orders spelled, not computed",
    "decimal": "likewise",
    "shutil": "argparse's help width: the CLI asks the terminal itself",
    "tilefit.model.lmem": "TPU-MLIR's allocator inputs: none in a plain capture",
    "tilefit.engine.production": "the allocators replayed whole: none named",
    "tilefit.verdicts.heap": "an import's standing against its toolchain's plan",
}
# bound gives no verdict and searches nothing.
UNUSED_BY_BOUND = {
    "tilefit.verdicts": "bound gives no verdict",
    "tilefit.search": "bound searches nothing",
}


def _unused(loaded: set[str], names: dict[str, str]) -> dict[str, str]:
    return {
        name: why
        for name, why in names.items()
        if any(m == name or m.startswith(f"{name}.") for m in loaded)
    }


def _plain_trace(folder: Path) -> Path:
    """A MiniMalloc CSV whose greedy pass reaches the live bound: solved with no search."""
    trace = folder / "plain.csv"
    trace.write_text("id,lower,upper,size\n0,0,2,64\n1,1,3,32\n2,3,5,96\n3,4,6,16\n")
    return trace


@pytest.mark.parametrize(
    "argv",
    [["bound", EXAMPLE], ["diagnose", EXAMPLE], ["diagnose", EXAMPLE, "--json"]],
    ids=lambda argv: " ".join(argv[:1] + argv[2:]),
)
def test_a_plain_capture_loads_no_toolchain_and_nothing_unused(argv: list[str]) -> None:
    loaded = _loaded(argv)
    assert _unused(loaded, UNUSED) == {}
    assert _heavy(loaded) == {}
    if argv[0] == "bound":
        assert _unused(loaded, UNUSED_BY_BOUND) == {}


def test_a_plain_trace_solved_by_its_greedy_pass_loads_nothing_unused(tmp_path: Path) -> None:
    argv = ["solve", str(_plain_trace(tmp_path)), "--capacity", "208", "--minimize"]
    loaded = _loaded(argv)
    assert "tilefit.verdicts.solving" in loaded  # it did solve
    assert _unused(loaded, UNUSED) == {}
    assert _heavy(loaded) == {}


def test_the_probe_sees_an_unused_module_when_one_is_loaded(tmp_path: Path) -> None:
    # A TPU-MLIR import's diagnose loads its toolchain (to tell the verdict in its words):
    # the pins above would pass vacuously if the probe could not see it.
    from tilefit.formats.save import capture_text
    from tilefit.toolchains import read

    trace = ROOT / "examples" / "tpumlir" / "conv_c32_s112_bm1684x.lmem_assign.log"
    attempt = tmp_path / "attempt.json"
    attempt.write_text(capture_text(read("tpumlir", [str(trace)]).imported[0].capture))
    loaded = _loaded(["diagnose", "--no-search", str(attempt)])
    assert "tilefit.toolchains" in _unused(loaded, UNUSED)


def test_the_probe_sees_a_heavy_library_when_one_is_loaded() -> None:
    # The pins above would pass vacuously if the probe saw nothing: a search loads numba.
    loaded = _loaded(["solve", "--node-limit", "1000", EXAMPLE])
    assert "numba" in loaded


def test_the_commands_table_names_each_modules_own_command() -> None:
    parser = build_parser()  # every module loaded, as --help does
    assert list(parser.commands) == list(COMMANDS)


def test_a_usage_error_of_one_command_still_names_the_others(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tilefit.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["diagnos", EXAMPLE])
    assert stop.value.code == 2
    assert "did you mean diagnose?" in capsys.readouterr().err


def test_bound_ends_without_the_teardown_and_its_output_whole() -> None:
    # bound asks for the quick exit (no interpreter teardown: 20 ms of 120 once numpy is
    # loaded); what it printed is flushed first, to a pipe as to a terminal.
    from tilefit.cli import main
    from tilefit.cli.common import Invocation

    invocation = Invocation(0.0)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["bound", EXAMPLE, "--json"], invocation) == 0
    assert invocation.quick_exit
    for extra in ([], ["--json"]):
        done = subprocess.run(
            [sys.executable, "-m", "tilefit", "bound", EXAMPLE, *extra],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        assert (done.returncode, done.stderr) == (0, "")
        with contextlib.redirect_stdout(io.StringIO()) as said:
            main(["bound", EXAMPLE, *extra])
        assert done.stdout == said.getvalue()
        assert done.stdout.endswith("\n")


@pytest.mark.parametrize("columns", [None, "50", "200", "0", "-3", "wide"])
def test_the_help_is_as_wide_as_argparse_would_make_it(
    columns: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The CLI asks the terminal's width itself (shutil, which argparse would import for
    # it, is not loaded): the same width as shutil gives, with COLUMNS set or not.
    import shutil

    from tilefit.cli import _columns

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert _columns() == shutil.get_terminal_size().columns


def test_numba_loads_without_scipys_linear_algebra_which_still_imports_after() -> None:
    # numba's array support probes for a BLAS by importing scipy.linalg (0.19 s of a
    # searching command here): load_numba refuses that import while numba loads only.
    probe = (
        "import sys\n"
        "from tilefit.engine.jit import load_numba\n"
        "numba = load_numba()\n"
        "import numpy as np\n"
        "total = numba.njit(lambda a: a.sum())(np.arange(5))\n"
        "before = 'scipy.linalg' in sys.modules\n"
        "import scipy.linalg\n"
        "print(total, before, scipy.linalg.__name__, sys.meta_path[0].__class__.__name__)\n"
    )
    total, before, name, first_finder = _printed(probe).split()
    assert (total, before, name) == ("10", "False", "scipy.linalg")
    assert first_finder != "_NoLinearAlgebra"


def test_numba_loaded_after_scipys_linear_algebra_is_loaded_as_it_is() -> None:
    probe = (
        "import scipy.linalg\n"
        "from tilefit.engine.jit import load_numba\n"
        "import numba.np.arraymath\n"
        "print(load_numba().np.arraymath._HAVE_BLAS)\n"
    )
    assert _printed(probe).split() == ["True"]
