"""tilefit compile: compile the search kernels now, so that the first search does not wait."""

from __future__ import annotations

import argparse
import sys
import time

from tilefit.cli import common
from tilefit.cli.progress import watching
from tilefit.verdicts.watch import compile_stage

NAME = "compile"
HELP = (
    "compile the search kernels now, once after installing or upgrading tilefit, "
    "so that the first search does not wait for them (exit 0)"
)
EXAMPLE = """example:
  tilefit compile

numba compiles the search kernels the first time a search needs them (about
30 s on a quiet 2-core machine, minutes on a busy one: the line before says
what to expect here) and caches them on disk,
beside the installed modules or under NUMBA_CACHE_DIR. Without this command
the first search that needs them waits that long once, its time limit given
back. Run it after `pip install`, and again after an upgrade; with the
kernels cached it only loads them and says so.
"""
READS: tuple[str, ...] = ()
WRITES: dict[str, str] = {}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No arguments: what to compile and where to cache it are numba's and tilefit's own."""


def run(args: argparse.Namespace) -> int:
    from tilefit.engine.jit import jit_disabled
    from tilefit.search import compiling
    from tilefit.search.kernel import jit

    if not jit.COMPILED:
        why = "TILEFIT_NO_JIT is set" if jit_disabled() else "numba is not installed"
        print(f"nothing to compile: {why}; the search runs as plain Python (many times slower)")
        return common.EXIT_OK
    cold = not compiling.kernels_cached()
    if cold:
        print(
            f"tilefit: compiling the search kernels ({compiling.estimate()} "
            "on this machine now)...",
            file=sys.stderr,
            flush=True,
        )
    started = time.monotonic()
    with watching(args) as watch:  # on a terminal, a line counting the seconds
        compiling.ensure_compiled(quiet=True, during=compile_stage(watch))
    seconds = time.monotonic() - started
    where = compiling.cache_folder()
    cached = f", cached in {where}" if where else ""
    if cold:
        print(f"search kernels compiled in {seconds:.1f} s{cached}")
    else:
        print(f"search kernels already compiled{cached} (loaded in {seconds:.1f} s)")
    return common.EXIT_OK
