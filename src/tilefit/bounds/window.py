"""A window of steps and what it asks of the memory: ``Window``, ``window_of``, ``windows_around``.

The least memory top is at least the least top of any window of steps [start, end)
taken alone, with every request cut to the steps it lives inside the window. Relaxed
further (every request a plain interval of its bytes, no alignment, class, range,
sequence or conflict; a range starting above 0 counted from 0), a window splits in two:
the requests *held* through the whole window, and the *transients* that start or end
inside it. The held ones stand still for the whole window, so in any placement their
bytes are address intervals no transient touches; taking those intervals out of the
address space (every address above one moved down by its bytes) keeps the transients
apart and packs them below ``top - held``. So

    least top >= held + the transients' own least top (cut to the window)

and the transients are few where the window is short: around the peak of a real program,
a handful of requests that start and end near it, whose least top the exact search
settles in milliseconds (``tilefit.search.proofs.least``). The bound grows with the
window (a wider window's problem, cut to a narrower one, is the narrower one's), and
the whole horizon as one window is the relaxed problem itself.

On a cyclic capture a window is a run of steps of the circle cut open at 0; a wrapping
request's two runs are cut to it apart and become two transients (dropping that they
share one offset is a relaxation too).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from tilefit.bounds.live import live_steps
from tilefit.model.capture import Capture, Request


@dataclass(frozen=True)
class Window:
    """The steps [start, end) of a capture and what lives in them."""

    start: int
    end: int
    held: int  # bytes of the requests living through every step of the window
    held_count: int
    transients: tuple[Request, ...]  # the others, cut to the window (steps from ``start``)

    def __post_init__(self) -> None:
        if not self.start < self.end:
            raise ValueError(f"window [{self.start}, {self.end}) holds no step")

    @property
    def steps(self) -> int:
        return self.end - self.start

    @property
    def transient_peak(self) -> int:
        """The most transient bytes live at one step of the window."""
        spans = ((r.start, r.end, r.size) for r in self.transients)
        return max((live for _, live in live_steps(spans)), default=0)


def lifetime_runs(request: Request, horizon: int) -> tuple[tuple[int, int], ...]:
    """The runs of steps ``request`` lives in: one, or two where it wraps a cyclic
    capture's circle of ``horizon`` steps (``start >= end``)."""
    if request.end <= request.start:
        return tuple(run for run in ((request.start, horizon), (0, request.end)) if run[0] < run[1])
    return ((request.start, request.end),)


@dataclass(frozen=True, eq=False)
class Lifetimes:
    """A capture's requests with bytes, and their lifetimes as arrays: what lives in a
    window is found without a pass over every request in Python (tens of thousands on
    a real program, a window per step grown)."""

    requests: tuple[Request, ...]
    starts: np.ndarray
    ends: np.ndarray
    wraps: np.ndarray
    horizon: int

    @classmethod
    def of(cls, capture: Capture) -> Lifetimes:
        sized = tuple(r for r in capture.requests if r.size > 0)
        starts = np.array([r.start for r in sized], dtype=np.int64)
        ends = np.array([r.end for r in sized], dtype=np.int64)
        return cls(sized, starts, ends, ends <= starts, capture.horizon)

    def window(self, start: int, end: int) -> Window:
        """The window of steps [start, end): the bytes held through it and the
        transients, each cut to the window and counted from its first step."""
        meets = ((self.starts < end) & (self.ends > start)) | self.wraps
        held = held_count = 0
        transients: list[Request] = []
        for k in np.flatnonzero(meets):
            request = self.requests[k]
            runs = [
                (max(lo, start), min(hi, end))
                for lo, hi in lifetime_runs(request, self.horizon)
                if lo < end and start < hi
            ]
            if runs == [(start, end)]:
                held += request.size
                held_count += 1
                continue
            for j, (lo, hi) in enumerate(runs):
                ident = request.id if len(runs) == 1 else f"{request.id}#{j}"
                transients.append(Request(ident, request.size, lo - start, hi - start))
        return Window(start, end, held, held_count, tuple(transients))


def window_of(capture: Capture, start: int, end: int) -> Window:
    """The window of steps [start, end) of ``capture`` (``Lifetimes.window``)."""
    return Lifetimes.of(capture).window(start, end)


def windows_around(capture: Capture, step: int, most: int) -> Iterator[Window]:
    """Windows growing from the one step ``step`` while they hold at most ``most``
    transients, each a step wider than the one before on the side that brings fewer
    new transients (the earlier side on a tie); every one yielded, narrowest first."""
    start, end = step, step + 1
    horizon = capture.horizon
    lifetimes = Lifetimes.of(capture)
    window = lifetimes.window(start, end)
    while len(window.transients) <= most:
        yield window
        options = []
        if start > 0:
            options.append(lifetimes.window(start - 1, end))
        if end < horizon:
            options.append(lifetimes.window(start, end + 1))
        if not options:
            return
        window = min(options, key=lambda w: len(w.transients))
        start, end = window.start, window.end
