"""A progress line with rate and ETA, for a terminal only.

On anything but a terminal (a pipe, a log file, CI) it stays quiet, so
captured output holds results, not carriage returns.
"""

from __future__ import annotations

from collections.abc import Callable
from time import monotonic
from typing import TextIO

from tilefit.batch.row import Row

BAR = 24
REDRAW = 0.2  # seconds between redraws


class Progress:
    def __init__(
        self, stream: TextIO, enabled: bool, clock: Callable[[], float] = monotonic
    ) -> None:
        self.stream = stream
        self.enabled = enabled
        self.clock = clock
        self.total = self.done = self.errors = 0
        self.started = self.drawn = 0.0

    @classmethod
    def for_terminal(cls, stream: TextIO, quiet: bool = False) -> Progress:
        return cls(stream, enabled=not quiet and stream.isatty())

    def start(self, total: int) -> None:
        self.total, self.done, self.errors = total, 0, 0
        self.started = self.clock()
        self.drawn = 0.0
        self._draw()

    def advance(self, row: Row) -> None:
        self.done += 1
        self.errors += row.error is not None
        if self.clock() - self.drawn >= REDRAW or self.done == self.total:
            self._draw()

    def finish(self) -> None:
        if self.enabled:
            self._draw()
            self.stream.write("\n")
            self.stream.flush()

    def line(self) -> str:
        """The progress line as it stands."""
        elapsed = max(self.clock() - self.started, 1e-9)
        share = self.done / self.total if self.total else 1.0
        filled = int(share * BAR)
        rate = self.done / elapsed
        parts = [
            f"{self.done}/{self.total}",
            f"{share:4.0%}",
            "[" + "#" * filled + "." * (BAR - filled) + "]",
            f"{rate:.1f} tiles/s",
        ]
        if self.done < self.total:
            eta = (self.total - self.done) / rate if rate > 0 else None
            parts.append("ETA " + (_duration(eta) if eta is not None else "--"))
        if self.errors:
            parts.append(f"{self.errors} error{'s' if self.errors != 1 else ''}")
        return "  ".join(parts)

    def _draw(self) -> None:
        if not self.enabled:
            return
        self.drawn = self.clock()
        self.stream.write("\r" + self.line() + "\x1b[K")
        self.stream.flush()


def _duration(seconds: float) -> str:
    whole = int(seconds + 0.5)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"
