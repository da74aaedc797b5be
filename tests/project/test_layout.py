"""The package layout: imports run downward only, docs/architecture.md names every
package, and commands that never search never load numba."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from checkout import ROOT

SOURCE = ROOT / "src" / "tilefit"

# Lowest first: a package may import its own modules and those of lower layers only.
LAYERS = {
    "model": 0,
    "schema": 0,
    "engine": 1,
    "bounds": 1,  # what no placement can beat: the verdicts and the search both use them
    "formats": 2,
    "search": 2,
    "peers": 3,  # other solvers measured against, outside the decider
    "verdicts": 3,
    "generate": 4,  # the infeasible tiles are thinned until the bounds show nothing
    "toolchains": 4,  # other compilers' plans in and out; an export is refereed first
    "batch": 5,
    "output": 6,
    "plot": 6,
    "report": 7,
    "cli": 8,
}


def _package(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "tilefit" else None


def _imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "tilefit":  # the package face: only its version, from below
                found += [f"tilefit.{alias.name}" for alias in node.names]
            else:
                found.append(node.module)
    return found


def test_every_package_has_a_layer_and_the_root_keeps_only_the_face() -> None:
    packages = {p.name for p in SOURCE.iterdir() if (p / "__init__.py").exists()}
    assert packages == set(LAYERS)
    modules = {p.name for p in SOURCE.glob("*.py")}
    assert modules == {"__init__.py", "__main__.py"}


def test_imports_never_run_upward() -> None:
    upward = []
    for path in sorted(SOURCE.rglob("*.py")):
        here = path.relative_to(SOURCE).parts
        if len(here) == 1:
            continue  # the package face and __main__ may name anything
        layer = LAYERS[here[0]]
        for module in _imports(path):
            if module == "tilefit.__version__":
                continue
            target = _package(module)
            if target is None or target == here[0]:
                continue
            if target not in LAYERS or LAYERS[target] >= layer:
                upward.append(f"{'/'.join(here)} imports {module}")
    assert upward == []


# Inside tilefit.search, by role, lowest first (docs/architecture.md): a module imports
# its own sub-package and lower roles only.
SEARCH_ROLES = {
    "routes": 0,  # the vocabulary and the registry of routes (each registers itself)
    "blocks": 0,
    "params": 1,  # every tuning value and switch
    "outcome": 1,  # the one result type (and the partial placement it may carry)
    "bracket": 1,  # where the least top lies when nothing decided, and its lower bound
    "kernel": 2,
    "problem": 3,  # the capture and what is built from it once, handed to every route
    "proof": 4,  # what runs a search (``Search``), and the prove member's kind of route
    "exact": 5,  # what drives the kernel, and route exact
    "proofs": 6,
    "local": 6,
    "compiling": 7,  # compiles the kernel's and the annealing's entry points before a limit
    "closest": 7,  # and route descent
    "sat": 8,  # route cpsat: its hint is the closest placement
    "stretches": 8,  # route stretches: the choice program as master, the find member in slaves
    "portfolio": 9,
}


def _role(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["tilefit", "search"] else None


def test_search_roles_import_downward_only() -> None:
    search = SOURCE / "search"
    roles = {p.stem for p in search.glob("*.py") if p.stem != "__init__"}
    roles |= {p.name for p in search.iterdir() if (p / "__init__.py").exists()}
    assert roles == set(SEARCH_ROLES)
    upward = []
    for path in sorted(search.rglob("*.py")):
        parts = path.relative_to(search).with_suffix("").parts
        if parts == ("__init__",):
            continue
        here = parts[0]
        for module in _imports(path):
            target = _role(module)
            if target is None or target == here:
                continue
            if SEARCH_ROLES[target] >= SEARCH_ROLES[here]:
                upward.append(f"search/{'/'.join(parts)} imports {module}")
    assert upward == []


def test_no_module_imports_another_ones_private_names() -> None:
    private = []
    for path in sorted(SOURCE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tilefit"):
                private += [
                    f"{path.relative_to(SOURCE)}: {node.module}.{alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_") and not alias.name.startswith("__")
                ]
    assert private == []


def test_architecture_doc_names_every_package() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    for package in LAYERS:
        assert f"tilefit/{package}/" in text or f"`{package}/`" in text, package


def _modules_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nprint(' '.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    return set(out.split())


@pytest.mark.parametrize(
    "code",
    [
        "import tilefit",
        "import tilefit; tilefit.check; tilefit.diagnose; tilefit.read_capture",
        "from tilefit.cli import main; main(['bound', 'examples/0-0.json', '--json'])",
        "from tilefit.cli import main; main(['replay', 'examples/0-0.json'])",
    ],
)
def test_no_numba_without_a_search(code: str) -> None:
    loaded = _modules_after(code)
    assert "numba" not in loaded
    assert "tilefit.search.kernel.jit" not in loaded


def test_import_tilefit_loads_neither_numpy_nor_the_engine() -> None:
    loaded = _modules_after("import tilefit")
    assert "numpy" not in loaded and "tilefit.engine.attempt" not in loaded


def test_module_names_are_not_hidden_by_functions() -> None:
    import importlib

    import tilefit

    for name in ("check", "diagnose", "replay", "experiment", "bound", "place"):
        assert callable(getattr(tilefit, name))
    verdicts = importlib.import_module("tilefit.verdicts.check")
    assert verdicts.__name__ == "tilefit.verdicts.check"  # a module, under its own name


def _module_of(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _top_level_imports(path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``path`` imports when it is loaded: its statements at
    module level, ``if TYPE_CHECKING:`` blocks included (an import inside a function runs
    later, when it is called); ``from package import module`` names the module."""
    found: set[str] = set()
    body = list(ast.parse(path.read_text()).body)
    while body:
        node = body.pop()
        if isinstance(node, ast.If | ast.Try):
            body += [*node.body, *node.orelse, *getattr(node, "finalbody", [])]
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                inner = f"{node.module}.{alias.name}"
                found.add(inner if inner in known else node.module)
    return found & known


def _import_cycles() -> list[list[str]]:
    paths = {_module_of(p): p for p in sorted(SOURCE.rglob("*.py"))}
    known = set(paths)
    edges = {m: sorted(_top_level_imports(p, known) - {m}) for m, p in paths.items()}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    path: list[str] = []

    def walk(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in edges[module]:
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                walk(target)
        path.pop()
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            walk(module)
    return cycles


def test_the_import_graph_has_no_circle() -> None:
    assert _import_cycles() == []


def test_a_circle_of_imports_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "tilefit" / "loop"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from tilefit.loop.b import B\nA = 1\n")
    typed = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tilefit.loop import a\n"
    (package / "b.py").write_text(typed + "B = 2\n")
    (package / "c.py").write_text("def late() -> None:\n    from tilefit.loop.a import A\n")
    monkeypatch.setattr(sys.modules[__name__], "SOURCE", tmp_path / "tilefit")
    assert _import_cycles() == [["tilefit.loop.a", "tilefit.loop.b", "tilefit.loop.a"]]
