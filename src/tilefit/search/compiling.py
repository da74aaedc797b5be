"""Compile the search kernels once, before any time limit starts: ``ensure_compiled``.

numba compiles the kernels (``tilefit.search.kernel.jit``) the first time they are
called after installing or upgrading tilefit, or after editing a module they
are made of: about 10 s on a quiet 2-core machine (the annealing loop and the engine's
loops compile in a forked process beside the exact kernel; about 19 s of CPU in all), then
they load
from the disk cache in well under a second. Compiled inside a search, that time came out of
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

import os
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

_done = False

# The compilation's wall time with two cores free (about 19 s of CPU over the two
# processes, 9.7-11 s of wall, benchmarks/README.md): on a busy machine it stretches with
# the processes that share the cores.
QUIET_SECONDS = 11.0


def ensure_compiled(
    quiet: bool = False,
    during: Callable[[], AbstractContextManager[object]] = nullcontext,
) -> float:
    """Compile (or load) the kernels in this process if not done yet; the seconds spent
    compiling, to be given back to the caller's limit (0.0 when the cache was warm).
    ``quiet``: say nothing on stderr (the caller does). A compilation runs inside
    ``during()`` (a progress line's stage, on a terminal)."""
    global _done
    if _done:
        return 0.0
    from tilefit.search.kernel import jit

    _done = True
    if not jit.COMPILED:
        return 0.0
    cold = not kernels_cached()
    if cold and not quiet:
        print(
            f"tilefit: compiling the search kernels once ({estimate()} on this machine now, "
            "then cached; `tilefit compile` does this after install)...",
            file=sys.stderr,
            flush=True,
        )
    started = time.monotonic()
    with during() if cold else nullcontext():
        _run_once(cold)
    seconds = time.monotonic() - started
    # Loading a warm cache can take seconds on a busy machine: only a compilation (a miss
    # of numba's cache, counted) is said and given back.
    if cold or compilations() > 0:
        if not quiet:
            print(
                f"tilefit: search kernels compiled in {seconds:.1f} s", file=sys.stderr, flush=True
            )
        return seconds
    return 0.0


def estimate(load: float | None = None, cores: int | None = None) -> str:
    """How long a compilation takes here, in words: ``QUIET_SECONDS`` with two cores free,
    stretched by the machine's load (the last minute's average of runnable processes):
    the compilation's two processes share the cores with them."""
    if load is None:
        try:
            load = os.getloadavg()[0]
        except OSError:  # no load average on this platform: assume a quiet machine
            load = 0.0
    cores = max(1, cores if cores is not None else os.cpu_count() or 1)
    seconds = QUIET_SECONDS * max(1.0, (load + 2) / max(2, cores)) * max(1.0, 2 / cores)
    if seconds < 100:
        return f"about {10 * round(seconds / 10):.0f} s"
    return f"about {max(2, round(seconds / 60))} minutes"


def _entries() -> tuple[Any, ...]:
    """The compiled entry points: each holds everything it calls."""
    from tilefit.search.kernel import branch
    from tilefit.search.local import anneal_loop

    return (branch.run, anneal_loop.iterate, anneal_loop.settle, *_engine_entries())


def _engine_entries() -> tuple[Any, ...]:
    """The engine's compiled loops' entry points, one a module (numba's cache is keyed on
    its file)."""
    from tilefit.engine import sweep_loop, uniform_loop

    return (uniform_loop.place_span, sweep_loop.sweep_span)


def compilations() -> int:
    """The functions numba compiled in this process so far (its cache missed them), over
    every compiled module: the search's kernels and the engine's loops. 0 where numba does
    not count (plain Python)."""
    import importlib

    from tilefit.search.kernel.jit import KERNEL_MODULES

    names = [f"tilefit.search.{m.replace('/', '.')}" for m in KERNEL_MODULES]
    count = 0
    engine = [entry.__module__ for entry in _engine_entries()]
    for name in (*names, *engine):
        for value in vars(importlib.import_module(name)).values():
            misses = getattr(getattr(value, "stats", None), "cache_misses", None)
            if isinstance(misses, dict):
                count += sum(misses.values())
    return count


def loop_cached() -> bool:
    """Whether the engine's compiled loops are in numba's disk cache (or there is nothing
    to compile: ``TILEFIT_NO_JIT``, where the engine places one by one)."""
    from tilefit.engine.uniform import jit_disabled

    if jit_disabled():
        return True
    return all(_cached(entry) for entry in _engine_entries())


def kernels_cached() -> bool:
    """Whether numba's disk cache holds every compiled entry point fresh (False if unsure)."""
    return all(_cached(entry) for entry in _entries())


def cache_folder() -> str | None:
    """Where numba keeps the compiled kernels (beside the installed modules, or under
    ``NUMBA_CACHE_DIR``); None when that cannot be told."""
    try:
        return str(_entries()[0]._cache._cache_path)
    except Exception:  # plain Python, or numba's internals changed shape
        return None


def _cached(dispatcher: Any) -> bool:
    """Whether numba's disk cache holds a fresh entry for the dispatcher (False if unsure)."""
    try:
        return bool(dispatcher._cache._cache_file._load_index())
    except Exception:  # numba's internals changed shape: announce to be safe
        return False


def _run_once(cold: bool) -> None:
    """The exact kernel, the engine's loops and the annealing loop, each once on a tiny
    capture. On a cold cache with two cores free the annealing loop and the engine's
    loops compile in a forked process at the same time as the exact kernel (their disk
    cache is what this process then loads): they share no function with it, so the wait
    is about the longer of the two (about 10 s of CPU each) instead of the sum (about
    19 s)."""
    aside: list[Any] = []
    try:
        if cold:
            _compile_aside(aside)
        _exact_once()
        for child in aside:
            child.join()
    finally:
        for child in aside:  # an exception here, Ctrl-C among them: stop it
            if child.is_alive():
                child.terminate()
                child.join()
    _uniform_once()
    _annealing_once()


def fork_is_safe() -> bool:
    """Whether this process may fork a helper: the platform forks, no other thread runs
    (a fork copies only this one, with whatever locks the others held), and it is not a
    daemonic worker itself (``tilefit batch``'s), which may not have children."""
    import multiprocessing
    import threading

    return (
        "fork" in multiprocessing.get_all_start_methods()
        and not multiprocessing.current_process().daemon
        and threading.active_count() == 1
    )


def _compile_aside(aside: list[Any]) -> None:
    """Start a forked process compiling the annealing loop and the engine's loop into the
    disk cache, and add it to ``aside``; none where forking is unsafe or there is no second
    core to run it on.

    Ctrl-C is held back from the fork until the process is in ``aside``: delivered in
    between, it would leave the process unknown to the caller that stops it, or land in
    the new process before it ignores Ctrl-C, which then unwinds the caller's stack it
    was forked with."""
    import multiprocessing
    import os
    import signal

    if (os.cpu_count() or 1) < 2 or not fork_is_safe():
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        child = multiprocessing.get_context("fork").Process(target=_annealing_aside, daemon=True)
        child.start()
        aside.append(child)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _annealing_aside() -> None:
    import signal

    # Ctrl-C reaches the process group: the parent answers it and stops this one. The
    # fork came with Ctrl-C held back: ignore it before letting it through.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _annealing_once()
    _uniform_once()


def _one_request() -> Any:
    from tilefit.model.capture import Capture, Memory, Range, Request
    from tilefit.search.blocks import build_model

    memory = Memory(1, (Range(0, 1),))
    return build_model(Capture("warm-up", 1, memory, (Request("w", 1, 0, 1),)))


def _uniform_once() -> None:
    """The engine's compiled loops for uniform captures on two requests: the loop that
    gathers live neighbours (the size order, whose starts do not ascend here) and the
    sweep (the lifetime order's); each compiles once for both fits."""
    from tilefit.engine.attempt import Prepared, run_strategy
    from tilefit.model.capture import Capture, Memory, Range, Request

    requests = (Request("a", 2, 1, 2), Request("b", 1, 0, 2))
    capture = Capture("warm-up", 2, Memory(3, (Range(0, 3),)), requests)
    prepared = Prepared.of(capture, uniform_from=0)
    run_strategy(prepared, "size/first-fit")
    run_strategy(prepared, "lifetime/first-fit")


def _exact_once() -> None:
    from tilefit.model.deadline import Deadline
    from tilefit.search.exact.solve import Budget, search_model

    search_model(_one_request(), Budget(Deadline.start(60)))


def _annealing_once() -> None:
    from tilefit.model.deadline import Deadline
    from tilefit.search.local.anneal import Annealer

    Annealer(_one_request(), {}, 1).run(1, Deadline.start(60))
