"""Whether compiled code runs: ``TILEFIT_NO_JIT`` asks for plain Python instead.

Its own module so that the compiled loop (``tilefit.engine.uniform_loop``) and
the module that drives it (``tilefit.engine.uniform``) both ask it without
importing each other.
"""

from __future__ import annotations

import os


def jit_disabled() -> bool:
    """Whether ``TILEFIT_NO_JIT`` asks for plain Python instead of numba's compiled code:
    the engine's loop (``tilefit.engine.uniform_loop``) and the search's kernels
    (``tilefit.search.kernel.jit``)."""
    return bool(os.environ.get("TILEFIT_NO_JIT"))
