"""The least memory top above the live bound, by proof: ``window_bound``.

``tilefit.bounds.window`` shows that no placement ends below a window's held bytes plus
its transients' own least top. Around the steps where the live load comes close to the
peak, the transients are few and must nearly tile what the held bytes leave; the exact
search, complete on them (plain intervals, one range from 0), refutes the tops where
they cannot. Each window is grown from such a step, narrowest first, as long as it
holds few transients and the search settles it: a wider window is never weaker.

A raised bound comes with its ``Refutation``: the window (its steps, its held bytes, its
transients cut to it) and the top at which the exact search found no placement of the
transients. ``recheck`` runs that search again from the capture alone.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from tilefit.bounds.live import live_steps
from tilefit.bounds.window import Window, lifetime_runs, window_of, windows_around
from tilefit.model.capture import Capture, Memory, Range
from tilefit.model.deadline import Deadline
from tilefit.search.blocks import build_model
from tilefit.search.exact.solve import Budget, search_model
from tilefit.search.params import DEFAULT, SearchParams
from tilefit.search.routes import INFEASIBLE, SOLVED, Status


@dataclass(frozen=True)
class Refutation:
    """The transients of ``window`` admit no placement in [0, ``least`` - 1): so no
    placement of the capture ends below ``window.held + least``."""

    window: Window
    least: int  # the transients' least top not refuted

    @property
    def lower(self) -> int:
        return self.window.held + self.least


@dataclass(frozen=True)
class LeastBound:
    """The least top not refuted, at least the ``given`` bound, and what raised it."""

    lower: int
    given: int  # the bound asked to beat (the live bound with its alignment padding)
    refutation: Refutation | None  # None: no window raised it
    windows: int  # windows whose transients the exact search was asked about
    seconds: float

    @property
    def raised(self) -> int:
        """Bytes the windows added to the bound given."""
        return self.lower - self.given


def transients_capture(window: Window, top: int) -> Capture:
    """The window's transients as a capture of one range [0, ``top``)."""
    memory = Memory(size=max(1, top), ranges=(Range(0, max(1, top)),))
    return Capture(f"window-{window.start}-{window.end}", window.steps, memory, window.transients)


def _fits(window: Window, top: int, seconds: float, params: SearchParams) -> Status:
    """Whether the transients fit below ``top`` (SOLVED, INFEASIBLE or a time-out)."""
    if top < window.transient_peak:
        return INFEASIBLE  # the live bound of the transients refutes it
    if not window.transients:
        return SOLVED
    model = build_model(transients_capture(window, top))
    return search_model(model, Budget(Deadline.start(seconds), params=params)).status


def busiest_steps(capture: Capture, most: int) -> list[int]:
    """Up to ``most`` steps, busiest first, one per run of steps with one live load."""
    runs = live_steps(
        (lo, hi, request.size)
        for request in capture.requests
        for lo, hi in lifetime_runs(request, capture.horizon)
    )
    ranked = sorted(runs, key=lambda run: (-run[1], run[0]))
    return [step for step, _ in ranked[:most] if step < capture.horizon]


def window_bound(
    capture: Capture,
    given: int,
    upper: int,
    stop_at: float,
    *,
    params: SearchParams = DEFAULT,
) -> LeastBound:
    """The least top not refuted by windows around the busiest steps, from ``given`` (a
    proven lower bound) up to at most ``upper`` (a top a placement reaches), by
    ``stop_at`` on the monotonic clock (``params.least``: how many steps, how many
    transients)."""
    started = time.monotonic()
    lower, refutation, asked = given, None, 0
    tuning = params.least
    for centre in busiest_steps(capture, tuning.centres):
        for window in windows_around(capture, centre, tuning.transients_most):
            if lower >= upper or time.monotonic() >= stop_at:
                break
            asked += 1
            least, settled = _window_least(window, lower, upper, stop_at, params)
            if least > lower - window.held:
                lower, refutation = window.held + least, Refutation(window, least)
            if not settled:
                break  # a wider window only takes longer
    seconds = time.monotonic() - started
    return LeastBound(lower, given, refutation, asked, seconds)


def _window_least(
    window: Window, lower: int, upper: int, stop_at: float, params: SearchParams
) -> tuple[int, bool]:
    """The transients' least top not refuted, from what is proven already (``lower`` less
    the held bytes, or their own live peak) by bisection up to ``upper - held``, and
    whether every probe was decided."""
    floor = max(lower - window.held, window.transient_peak)
    lo, hi = floor, upper - window.held  # refuted below lo; no need to look past hi
    settled = True
    while lo < hi:
        probe = lo if lo == floor else (lo + hi) // 2
        left = stop_at - time.monotonic()
        if left <= 0:
            return lo, False
        status = _fits(window, probe, left * params.least.window_probe_share, params)
        if status == INFEASIBLE:
            lo = probe + 1
        elif probe == floor:
            return lo, status == SOLVED  # the window adds nothing at the bound itself
        else:
            settled = settled and status == SOLVED
            hi = probe  # undecided: look lower, where refuting is quicker
    return lo, settled


def recheck(capture: Capture, refutation: Refutation, seconds: float) -> bool:
    """Whether the refutation holds: the window cut from ``capture`` again is the one
    recorded, and the exact search again finds no placement of its transients below
    ``least`` (within ``seconds``: a time-out is not a confirmation)."""
    window = refutation.window
    again = window_of(capture, window.start, window.end)
    if again != window:
        return False
    return _fits(again, refutation.least - 1, seconds, DEFAULT) == INFEASIBLE
