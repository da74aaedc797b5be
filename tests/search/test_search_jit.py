"""numba's disk cache of the search kernels is keyed on the modules it compiles, not one file."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from tilefit.search.kernel import branch, jit


def _module(path: Path) -> str:
    """A module's name as ``KERNEL_MODULES`` writes it: its path below tilefit/search."""
    return path.relative_to(jit.SEARCH_DIR).with_suffix("").as_posix()


@pytest.mark.skipif(not jit.COMPILED, reason="numba is not installed: nothing is cached")
def test_the_kernel_cache_is_stamped_with_the_digest_of_every_search_module() -> None:
    cache = branch.run._cache  # type: ignore[attr-defined]
    assert cache._impl.locator.get_source_stamp() == jit.kernel_digest()
    assert cache._cache_file._source_stamp == jit.kernel_digest()


def test_the_digest_covers_each_module() -> None:
    digest = jit.kernel_digest()
    assert len(digest) == 64 and digest == jit.kernel_digest()
    for name in jit.KERNEL_MODULES:
        assert (jit.SEARCH_DIR / f"{name}.py").is_file(), name


def _imports(path: Path) -> set[str]:
    """The modules of tilefit.search a module imports, as paths below it."""
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.level != 0:
            continue
        module = node.module or ""
        if not module.startswith("tilefit.search"):
            continue
        below = module.split(".")[2:]
        for alias in node.names:  # "from tilefit.search.kernel import layout" names a module
            candidate = [*below, alias.name]
            if (jit.SEARCH_DIR.joinpath(*candidate).with_suffix(".py")).is_file():
                found.add("/".join(candidate))
            elif below:
                found.add("/".join(below))
    return found


def test_the_digest_covers_what_numba_compiles_and_nothing_else() -> None:
    """Every module with @jit or @entry functions is keyed, and so is every search module they
    import; the portfolio, CP-SAT and the heuristic routes are not (editing them must
    not recompile the kernels)."""
    paths = sorted(jit.SEARCH_DIR.rglob("*.py"))
    compiled = {_module(p) for p in paths if {"@jit", "@entry"} & set(p.read_text().split())}
    keyed = set(jit.KERNEL_MODULES)
    assert compiled <= keyed
    for name in keyed:
        assert _imports(jit.SEARCH_DIR / f"{name}.py") <= keyed, name
    assert not {"portfolio", "local/find", "kernel/warm", "exact/solve"} & keyed


def test_editing_a_module_numba_does_not_compile_keeps_the_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(jit.SEARCH_DIR, tmp_path / "search")
    monkeypatch.setattr(jit, "SEARCH_DIR", tmp_path / "search")
    jit.kernel_digest.cache_clear()
    try:
        before = jit.kernel_digest()
        with (tmp_path / "search" / "portfolio.py").open("a") as f:
            f.write("\n# an edit\n")
        jit.kernel_digest.cache_clear()
        assert jit.kernel_digest() == before
        with (tmp_path / "search" / "kernel" / "place.py").open("a") as f:
            f.write("\n# an edit\n")
        jit.kernel_digest.cache_clear()
        assert jit.kernel_digest() != before
    finally:
        jit.kernel_digest.cache_clear()
