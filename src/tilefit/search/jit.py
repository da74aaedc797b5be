"""Compile the search kernel with numba when it is installed, else run it as plain Python.

Set ``TILEFIT_NO_JIT=1`` to force plain Python (the tests compare both paths).
Compiled functions are cached on disk, so only the first run pays for compiling.
numba checks a cached function against its own file only, and the cached
``kernel.run`` holds everything it calls: after editing another kernel module
(place, frames, ordering), delete ``__pycache__`` here or the compiled search
keeps running the old code.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def _plain(function: F) -> F:
    return function


def _choose() -> tuple[Callable[[Any], Any], bool]:
    if os.environ.get("TILEFIT_NO_JIT"):
        return _plain, False
    try:
        numba = importlib.import_module("numba")
    except ImportError:
        return _plain, False
    return numba.njit(cache=True), True


_decorator, COMPILED = _choose()


def jit(function: F) -> F:
    """The kernel decorator: numba's ``njit(cache=True)``, or nothing."""
    compiled: F = _decorator(function)
    return compiled
