"""``python -m tilefit`` and the ``tilefit`` command's entry point.

An interrupt at any moment once this module has run its first statements exits
130 with one line ("tilefit: interrupted") and no traceback: they answer
Ctrl-C (``_early``) until ``entry`` has its own ``try`` around the command's
imports, where a KeyboardInterrupt is answered the same way. Only what runs
before this module (the interpreter's start-up, the console script's
``import re``, the package ``tilefit/__init__``, which imports nothing) is
still Python's to handle, and so are those first few statements.
``tilefit.cli.entry`` does the rest (a closed stdout exits quietly with 141).

Importing this module is asking for the command, so it may take SIGINT; a host
program that set its own SIGINT handler keeps it. ``import tilefit`` takes
nothing process-wide.
"""

# The first statements answer Ctrl-C, so nothing before them may take time: no
# ``from __future__`` (it imports a module), and the signal functions come from the
# built-in ``_signal`` Python has already loaded (``signal`` wraps them in enums,
# which took 0.5 ms and more to import). ``os``, ``sys`` and ``_thread`` are loaded already too.
import os
import sys
from _thread import get_ident, start_new_thread
from time import monotonic

STARTED = monotonic()  # the commands' --time-limit counts from here (time is built in)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from signal import SIGINT, default_int_handler, getsignal, signal
else:
    from _signal import SIGINT, default_int_handler, getsignal, signal

EXIT_INTERRUPTED = 130  # 128 + SIGINT
_told = False  # "tilefit: interrupted" is said once
_MAIN_THREAD = get_ident()  # where Python runs signal handlers


def _say_interrupted() -> None:
    global _told
    if _told:
        return
    _told = True
    # No contextlib.suppress: contextlib may not be loaded yet when _early runs.
    try:  # noqa: SIM105
        print("tilefit: interrupted", file=sys.stderr)
    except (OSError, KeyboardInterrupt):
        pass  # nobody to tell, or a second Ctrl-C: the exit status still says it


def _early(signum: int, frame: object) -> None:
    """Ctrl-C before ``entry`` is ready: a SystemExit, which Python ends on without a
    traceback even part-way through an import (a KeyboardInterrupt would print one)."""
    _say_interrupted()
    raise SystemExit(EXIT_INTERRUPTED)


def _unraisable(args: "sys.UnraisableHookArgs") -> None:
    """Ctrl-C's exception raised inside a weakref callback or ``__del__`` (an import's
    module lock has one) is only printed there ("Exception ignored in ...") and the
    command runs on. Answer it instead."""
    if args.exc_type is SystemExit and _told:  # _early's: nothing is written yet
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)
    elif args.exc_type is KeyboardInterrupt and sys.platform != "win32":
        import signal

        # Sent again from another thread: sent from here, it would be raised in this
        # hook and be ignored again; this way it reaches the command's own code.
        start_new_thread(signal.pthread_kill, (_MAIN_THREAD, SIGINT))
    else:
        sys.__unraisablehook__(args)


if getsignal(SIGINT) is default_int_handler:
    signal(SIGINT, _early)
    if sys.unraisablehook is sys.__unraisablehook__:
        sys.unraisablehook = _unraisable

# numpy's OpenBLAS starts a thread per core when it loads, and the commands use no BLAS
# that threads would speed up: one thread halves `tilefit bound`'s CPU (0.19 -> 0.09 s)
# and keeps the portfolio's and batch's processes from crowding the cores. A user's own
# setting stands.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from tilefit.model.errors import answered_interrupt, by_interrupt  # noqa: E402 (after the handler: it imports)


def entry() -> None:
    try:
        # From here a KeyboardInterrupt is answered below, and the commands need it
        # (files written whole or not at all, batch's "rerun with --resume").
        if getsignal(SIGINT) is _early:
            signal(SIGINT, default_int_handler)
        from tilefit.cli import entry as cli_entry

        cli_entry(STARTED)
    except (KeyboardInterrupt, RuntimeError) as error:
        if not by_interrupt(error):
            raise
        _say_interrupted()
        answered_interrupt()
        sys.exit(EXIT_INTERRUPTED)


if __name__ == "__main__":
    entry()
