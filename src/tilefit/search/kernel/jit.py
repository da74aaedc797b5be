"""Compile the search kernel with numba when it is installed, else run it as plain Python.

Set ``TILEFIT_NO_JIT=1`` to force plain Python (the tests compare both paths).
Compiled functions are cached on disk, so only the first run pays for compiling.

numba checks a cached function against its own file only, while the cached
``branch.run`` holds everything it calls from the other kernel modules (place,
frames, ordering, layout). So the cache is keyed instead on one digest of the
modules numba compiles (``KERNEL_MODULES``, ``kernel_digest``): editing any of
them recompiles the kernels, and the stale entries are overwritten; editing
the rest of the package (the portfolio, the proofs, the find routes) does not.

This module is imported only when a search runs (``tilefit.verdicts.solving``, and
``tilefit.verdicts.diagnose`` once no strategy or bound has decided), so the
commands that never search never load numba.
"""

from __future__ import annotations

import hashlib
import importlib
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from tilefit.engine.uniform import jit_disabled

F = TypeVar("F", bound=Callable[..., Any])

SEARCH_DIR = Path(__file__).resolve().parent.parent
"""The folder of ``tilefit.search``, which ``KERNEL_MODULES`` names paths in."""


KERNEL_MODULES = (
    "kernel/branch",
    "kernel/frames",
    "kernel/jit",
    "kernel/layout",
    "kernel/ordering",
    "kernel/place",
    "kernel/sections",
    "local/anneal_loop",
    "local/ruin",
)
"""The modules of ``tilefit.search`` (paths below it) whose text the compiled kernels hold:
those with ``@jit`` functions, what they import from this package, and this decorator
itself (``tests/test_search_jit.py`` checks that the list is closed under those imports)."""


@cache
def kernel_digest() -> str:
    """A digest of the modules numba compiles (``KERNEL_MODULES``), in name order."""
    digest = hashlib.sha256()
    for name in sorted(KERNEL_MODULES):
        path = SEARCH_DIR / f"{name}.py"
        digest.update(name.encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def _plain(function: F) -> F:
    return function


def _digest_cache(numba: Any) -> Callable[[Any], Any]:
    """``njit`` with a disk cache whose freshness stamp is ``kernel_digest()``.

    numba's own locators decide where the cache lives (``__pycache__`` here, or
    ``NUMBA_CACHE_DIR``); only their source stamp is replaced. Should numba's
    caching internals change shape, this falls back to ``njit(cache=True)``.
    """
    try:
        from numba.core import caching

        def stamped(locator: type) -> type:
            return type(
                f"Digest{locator.__name__}",
                (locator,),
                {"get_source_stamp": lambda self: kernel_digest()},
            )

        impl = type(
            "DigestCacheImpl",
            (caching.CompileResultCacheImpl,),
            {"_locator_classes": [stamped(c) for c in caching.CacheImpl._locator_classes]},
        )
        function_cache = type(
            "DigestFunctionCache", (caching.FunctionCache,), {"_impl_class": impl}
        )
    except (ImportError, AttributeError):
        fallback: Callable[[Any], Any] = numba.njit(cache=True)
        return fallback

    def compile_cached(function: Any) -> Any:
        dispatcher = numba.njit(function)
        dispatcher._cache = function_cache(dispatcher.py_func)
        return dispatcher

    return compile_cached


def _choose() -> tuple[Callable[[Any], Any], bool]:
    if jit_disabled():
        return _plain, False
    try:
        numba = importlib.import_module("numba")
    except ImportError:
        return _plain, False
    return _digest_cache(numba), True


_decorator, COMPILED = _choose()


def jit(function: F) -> F:
    """The kernel decorator: numba's ``njit``, cached under ``kernel_digest()``, or nothing."""
    compiled: F = _decorator(function)
    return compiled


@contextmanager
def _python(**types: str) -> Iterator[None]:
    """Plain Python's stand-in for ``numba.objmode``: the block just runs."""
    yield


_objmode: Any = importlib.import_module("numba").objmode if COMPILED else _python


@jit
def clock() -> float:
    """``time.monotonic()``, callable from compiled kernels (through numba's object mode)
    and from plain Python alike; a few microseconds a call when compiled."""
    with _objmode(now="float64"):
        now = time.monotonic()
    return now
