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
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from tilefit.engine.jit import jit_disabled, load_numba

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
    "kernel/sorting",
    "local/anneal_loop",
    "local/ruin",
)
"""The modules of ``tilefit.search`` (paths below it) whose text the compiled kernels hold:
those with ``@jit`` functions, what they import from this package, and this decorator
itself (``tests/search/test_search_jit.py`` checks that the list is closed under those imports)."""


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


def _plain(function: F, entry: bool = False) -> F:
    return function


WRAPPERS_OFF = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
"""numba's options for a kernel called only from other kernels: no wrapper that
converts Python objects to its arguments. A kernel taking ``Tables`` and ``State``
(53 arrays) had one that unpacked them all, compiled and optimised with it: half the
exact kernel's compile time went to wrappers that nothing called."""


def _digest_cache(numba: Any) -> Callable[[Any, bool], Any]:
    """``njit`` with a disk cache whose freshness stamp is ``kernel_digest()``, without
    Python wrappers unless ``entry``.

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
        dispatcher_class = _kernel_dispatcher()
    except (ImportError, AttributeError):
        return lambda function, entry: numba.njit(cache=True)(function)

    def compile_cached(function: Any, entry: bool) -> Any:
        options = {"nopython": True, **({} if entry else WRAPPERS_OFF)}
        dispatcher = dispatcher_class(py_func=function, locals={}, targetoptions=options)
        dispatcher._cache = function_cache(dispatcher.py_func)
        return dispatcher

    return compile_cached


def _kernel_dispatcher() -> type:
    """numba's dispatcher, compiling a kernel called from another kernel once per type
    of its arguments, not once per constant: numba types a constant argument as its
    literal value, so ``record(..., T_LOW, ...)`` and ``record(..., T_FLOOR, ...)`` were
    two compilations, and every caller's compilation links and optimises each of them
    again (11 of the exact kernel's functions were compiled twice or more). The code
    is the same: LLVM folds the constant where it inlines the callee."""
    from numba.core import types
    from numba.core.registry import CPUDispatcher

    unliteral: Callable[[Any], Any] = types.unliteral

    def get_call_template(self: Any, args: Any, kws: Any) -> Any:
        plain = tuple(unliteral(a) for a in args)
        named = {k: unliteral(v) for k, v in kws.items()}
        return CPUDispatcher.get_call_template(self, plain, named)

    def call(self: Any, *args: Any, **kws: Any) -> Any:
        # Without its wrapper, a kernel called from Python would crash the interpreter.
        if self.targetoptions.get("no_cpython_wrapper"):
            raise TypeError(
                f"{self.py_func.__qualname__} is compiled for other kernels only: call it "
                "from a kernel, or through tilefit.search.kernel.jit.from_python"
            )
        return CPUDispatcher.__call__(self, *args, **kws)

    return type(
        "KernelDispatcher",
        (CPUDispatcher,),
        {"get_call_template": get_call_template, "__call__": call},
    )


def _choose() -> tuple[Callable[[Any, bool], Any], bool]:
    if jit_disabled():
        return _plain, False
    try:
        numba = load_numba()
    except ImportError:
        return _plain, False
    return _digest_cache(numba), True


_decorator, COMPILED = _choose()


def jit(function: F) -> F:
    """The kernel decorator: numba's ``njit``, cached under ``kernel_digest()``, or nothing.
    Compiled, the function is callable from other kernels only (``entry`` for those that
    Python calls; ``from_python`` for a test's call of one from Python)."""
    compiled: F = _decorator(function, False)
    return compiled


def entry(function: F) -> F:
    """``jit`` for a kernel that Python calls (the search's entry points)."""
    compiled: F = _decorator(function, True)
    return compiled


def from_python(function: F) -> F:
    """A kernel that only other kernels call, as Python may call it (for the tests):
    compiled again with its wrappers (once per process, not on disk), or in plain
    Python itself."""
    if not COMPILED:
        return function
    twin: F = _twin(function)
    return twin


@cache
def _twin(function: Any) -> Any:
    return load_numba().njit(function.py_func)


@contextmanager
def _python(**types: str) -> Iterator[None]:
    """Plain Python's stand-in for ``numba.objmode``: the block just runs."""
    yield


_objmode: Any = load_numba().objmode if COMPILED else _python


@jit
def clock() -> float:
    """``time.monotonic()``, callable from compiled kernels (through numba's object mode)
    and from plain Python alike; a few microseconds a call when compiled."""
    with _objmode(now="float64"):
        now = time.monotonic()
    return now
