"""Compile the search kernels once, before any time limit starts: ``ensure_compiled``.

numba compiles the kernels (``tilefit.search.kernel.jit``) the first time they are
called after installing or upgrading tilefit, or after editing a module they
are made of: about a minute on a 2-core machine, then they load from the disk
cache in well under a second. Compiled inside a search, that time came out of
its limit, so the first run after install timed out where a warm one decided.

``ensure_compiled`` runs every compiled entry point once on a one-request
capture. When the disk cache holds none of them fresh it says so on stderr,
one line before and the time taken after, and returns the seconds spent, which
the callers add to their deadline: the limit counts the search, not that
compilation. Loading a warm cache costs little and is not given back. It runs
once per process; processes forked afterwards (the portfolio's members)
inherit the compiled kernels, and processes spawned afterwards (``tilefit
batch``'s workers) load them from the cache it wrote.
"""

from __future__ import annotations

import sys
import time
from typing import Any

ANNOUNCE_AFTER = 2.0
"""Seconds past which a warm-up the cache check did not foresee is reported all the same."""

_done = False


def ensure_compiled() -> float:
    """Compile (or load) the kernels in this process if not done yet; the seconds spent
    compiling, to be given back to the caller's limit (0.0 when the cache was warm)."""
    global _done
    if _done:
        return 0.0
    from tilefit.search.kernel import branch, jit
    from tilefit.search.local import anneal_loop

    _done = True
    if not jit.COMPILED:
        return 0.0
    entries = (branch.run, anneal_loop.iterate, anneal_loop.settle)
    cold = not all(_cached(entry) for entry in entries)
    if cold:
        print(
            "tilefit: compiling the search kernels once (about a minute; cached for later runs)...",
            file=sys.stderr,
            flush=True,
        )
    started = time.monotonic()
    _run_once()
    seconds = time.monotonic() - started
    if cold or seconds > ANNOUNCE_AFTER:
        print(f"tilefit: search kernels compiled in {seconds:.1f} s", file=sys.stderr, flush=True)
        return seconds
    return 0.0


def _cached(dispatcher: Any) -> bool:
    """Whether numba's disk cache holds a fresh entry for the dispatcher (False if unsure)."""
    try:
        return bool(dispatcher._cache._cache_file._load_index())
    except Exception:  # numba's internals changed shape: announce to be safe
        return False


def _run_once() -> None:
    """The exact kernel and the annealing loop, each once on a one-request capture."""
    from tilefit.model.capture import Capture, Memory, Range, Request
    from tilefit.search.blocks import build_model
    from tilefit.search.exact.solve import Budget, search_model
    from tilefit.search.local.anneal import Annealer

    memory = Memory(1, (Range(0, 1),))
    model = build_model(Capture("warm-up", 1, memory, (Request("w", 1, 0, 1),)))
    search_model(model, Budget(60))
    Annealer(model, {}, 1).run(1, time.monotonic() + 60)
