"""Whether compiled code runs (``TILEFIT_NO_JIT`` asks for plain Python instead), and
how numba is loaded and asked to compile the engine's loops.

Its own module so that the compiled loops (``tilefit.engine.uniform_loop``,
``tilefit.engine.sweep_loop``) and the module that drives them
(``tilefit.engine.uniform``) all ask it without importing each other.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])


def jit_disabled() -> bool:
    """Whether ``TILEFIT_NO_JIT`` asks for plain Python instead of numba's compiled code:
    the engine's loops (``tilefit.engine.uniform_loop``, ``sweep_loop``) and the search's kernels
    (``tilefit.search.kernel.jit``)."""
    return bool(os.environ.get("TILEFIT_NO_JIT"))


class _NoLinearAlgebra:
    """An import finder (``sys.meta_path``) that refuses ``scipy.linalg`` while it is
    installed (not an ``importlib.abc`` subclass: that module loads ``shutil``)."""

    def find_spec(self, name: str, path: object, target: object = None) -> ModuleSpec | None:
        if name == "scipy.linalg":
            raise ModuleNotFoundError(f"not while numba loads: {name}", name=name)
        return None


def load_numba() -> ModuleType:
    """numba, loaded without the probe that its array support makes on import.

    ``numba.np.arraymath`` asks whether a BLAS is there for ``np.dot`` by importing
    ``scipy.linalg`` (0.19 s of a 1.0 s ``solve`` here, scipy being installed for the
    choice proof); no kernel of tilefit calls ``np.dot`` or ``np.linalg``, so the probe
    is refused while that module loads and numba carries on as without scipy. Once
    loaded, nothing is refused: ``scipy.linalg`` imports as usual later. If scipy's
    linear algebra is loaded already, numba is loaded as it is.
    """
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return importlib.import_module("numba")
    numba = importlib.import_module("numba")
    refuse = _NoLinearAlgebra()
    sys.meta_path.insert(0, refuse)
    try:
        importlib.import_module("numba.np.arraymath")
    finally:
        sys.meta_path.remove(refuse)
    return numba


def loop_decorator(entry: bool) -> Callable[[F], F]:
    """numba's ``njit`` with its disk cache for an engine loop's functions, or nothing
    under ``TILEFIT_NO_JIT``; without the wrappers that convert Python objects to the
    arguments unless ``entry`` (the one function Python calls: the others' wrappers were
    a third of the compilation). numba keys the cache on the function's own file, so a
    loop's module calls nothing compiled outside it."""
    if jit_disabled():
        return lambda function: function
    njit: Any = load_numba().njit  # its stubs know no wrapper options
    wrappers = {} if entry else {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
    compile_cached: Any = njit(cache=True, **wrappers)
    return cast(Callable[[F], F], compile_cached)
