"""The progress line of ``diagnose`` and ``solve``: one line on a terminal's stderr.

While the search runs it says what runs (the portfolio's members racing, the bisection
of the lowest top, the closest placement), the bracket that holds the lowest top when
there is one, and the time left, redrawn in place (``\\r``) a few times a second. A stage
without a deadline (the one-time compilation, a toolchain reading or running a model)
says the time it has taken so far instead. On
anything but a terminal, and with ``--json``, it says nothing, so that captured output
holds results only (as ``tilefit.batch.progress`` does for batch).

The line is redrawn from a SIGALRM timer in this process, not a thread: the search
forks its members only while the process has one thread (``tilefit.search.portfolio``),
and a forked child inherits no timer. The handler writes with ``os.write``, never
through ``sys.stderr``'s buffer, so it cannot collide with a write under way, and it
never raises: a line that cannot be drawn is given up.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from collections.abc import Callable
from contextlib import suppress
from types import FrameType, TracebackType
from typing import Any

from tilefit.verdicts.watch import QUIET, Watch

REDRAW = 0.25  # seconds between redraws
CLEAR = "\r\x1b[K"


class TerminalWatch(Watch):
    """A ``Watch`` that draws one line on the terminal at ``fd``; a context manager."""

    def __init__(self, fd: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.fd = fd
        self.clock = clock
        self.text: str | None = None  # the stage; None: nothing to draw
        self.deadline: float | None = None
        self.began = 0.0  # when the stage began (a stage without a deadline counts up)
        self.lower: int | None = None  # the bracket of the lowest top, when there is one
        self.best: int | None = None
        self.probing: int | None = None
        self.drawn = False
        self.width = 80
        self.previous: Any = None

    def __enter__(self) -> TerminalWatch:
        with suppress(OSError):  # a terminal that says no size (0) keeps 80 columns
            self.width = os.get_terminal_size(self.fd).columns or self.width
        self.previous = signal.signal(signal.SIGALRM, self._tick)
        signal.siginterrupt(signal.SIGALRM, False)  # system calls restart, as without it
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.previous)
        self._clear()  # before the command's output, or "tilefit: interrupted"

    def stage(self, text: str, deadline: float | None = None) -> None:
        if text != self.text:
            self.lower = self.best = self.probing = None
            self.began = self.clock()
        self.text, self.deadline = text, deadline
        if not signal.getitimer(signal.ITIMER_REAL)[0]:
            signal.setitimer(signal.ITIMER_REAL, REDRAW, REDRAW)
        self._draw()

    def bracket(self, lower: int, best: int, probing: int | None = None) -> None:
        self.lower, self.best, self.probing = lower, best, probing
        self._draw()

    def pause(self) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        self.text = None
        self._clear()

    def line(self) -> str:
        """The line as it stands (empty when no stage runs)."""
        if self.text is None:
            return ""
        text = self.text
        if self.lower is not None and self.best is not None:
            text += f" in [{self.lower:,}, {self.best:,}] B"
            if self.probing is not None:
                text += f", trying {self.probing:,}"
        if self.deadline is None:
            text += f", {self.clock() - self.began:.0f} s"
        else:
            text = f"{max(0.0, self.deadline - self.clock()):.1f} s left  {text}"
        # Shorter than the terminal, so that it never wraps (a wrapped line is not redrawn).
        return text if len(text) < self.width else text[: max(0, self.width - 4)] + "..."

    def _tick(self, signum: int, frame: FrameType | None) -> None:
        self._draw()

    def _draw(self) -> None:
        line = self.line()
        if line:
            # Drawn before the write: a Ctrl-C during it must still find a line to clear.
            self.drawn = True
            self._write(CLEAR + line)

    def _clear(self) -> None:
        if self.drawn:
            self._write(CLEAR)
            self.drawn = False

    def _write(self, text: str) -> None:
        try:
            os.write(self.fd, text.encode("utf-8", "replace"))
        except Exception:  # a line that cannot be drawn is given up, quietly
            self.text = None
            signal.setitimer(signal.ITIMER_REAL, 0)


class _Quiet:
    """``QUIET`` as a context manager."""

    def __enter__(self) -> Watch:
        return QUIET

    def __exit__(self, *exc: object) -> None:
        return None


def watching(args: argparse.Namespace) -> TerminalWatch | _Quiet:
    """The progress line for a command: drawn on stderr when it is a terminal and the
    command prints text (not ``--json``), and signals can be taken; else nothing."""
    try:
        fd = sys.stderr.fileno()
        terminal = os.isatty(fd)
    except (AttributeError, OSError, ValueError):  # a replaced stderr, or a closed one
        terminal = False
    if getattr(args, "json", False) or not terminal or not hasattr(signal, "setitimer"):
        return _Quiet()
    import threading

    if threading.current_thread() is not threading.main_thread():
        return _Quiet()  # signals are the main thread's
    return TerminalWatch(fd)
