"""numba's disk cache of the search kernels is keyed on the modules it compiles, not one file."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from tilefit.search import jit, kernel


@pytest.mark.skipif(not jit.COMPILED, reason="numba is not installed: nothing is cached")
def test_the_kernel_cache_is_stamped_with_the_digest_of_every_search_module() -> None:
    cache = kernel.run._cache  # type: ignore[attr-defined]
    assert cache._impl.locator.get_source_stamp() == jit.kernel_digest()
    assert cache._cache_file._source_stamp == jit.kernel_digest()


def test_the_digest_covers_each_module() -> None:
    digest = jit.kernel_digest()
    assert len(digest) == 64 and digest == jit.kernel_digest()
    modules = sorted(p.name for p in jit._HERE.glob("*.py"))
    assert {"kernel.py", "place.py", "frames.py", "ordering.py", "state.py"} <= set(modules)


def _imports(path: Path) -> set[str]:
    """The modules of tilefit.search a module imports."""
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "tilefit.search":
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tilefit.search."):
            found.add((node.module or "").split(".")[2])
    return found


def test_the_digest_covers_what_numba_compiles_and_nothing_else() -> None:
    """Every module with @jit functions is keyed, and so is every search module they
    import; the portfolio, CP-SAT and the heuristic routes are not (editing them must
    not recompile the kernels)."""
    here = jit._HERE
    compiled = {p.stem for p in here.glob("*.py") if "@jit" in p.read_text()}
    keyed = set(jit.KERNEL_MODULES)
    assert compiled <= keyed
    for name in keyed:
        assert _imports(here / f"{name}.py") <= keyed, name
    assert not {"portfolio", "cpsat", "heuristic", "warm", "solver"} & keyed


def test_editing_a_module_numba_does_not_compile_keeps_the_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for path in jit._HERE.glob("*.py"):
        shutil.copy(path, tmp_path / path.name)
    monkeypatch.setattr(jit, "_HERE", tmp_path)
    jit.kernel_digest.cache_clear()
    try:
        before = jit.kernel_digest()
        with (tmp_path / "portfolio.py").open("a") as f:
            f.write("\n# an edit\n")
        jit.kernel_digest.cache_clear()
        assert jit.kernel_digest() == before
        with (tmp_path / "place.py").open("a") as f:
            f.write("\n# an edit\n")
        jit.kernel_digest.cache_clear()
        assert jit.kernel_digest() != before
    finally:
        jit.kernel_digest.cache_clear()
