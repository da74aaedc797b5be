"""numba's disk cache of the search kernel is keyed on every search module, not one file."""

from __future__ import annotations

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
