"""Issue 48, start-up: a command loads what it uses and nothing else.

Compiler integrations call tilefit once per model or per program, so every module a
command loads without needing it is paid on every call. The light commands' imports
are pinned here (in a fresh interpreter each, as the console script runs them); the
whole-process times are measured by ``benchmarks/startup.py``, not here.
"""

from __future__ import annotations

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
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return set(done.stdout.splitlines()[-1].split())


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
