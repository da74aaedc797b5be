"""The progress line: rate and ETA on a terminal, silence elsewhere."""

from __future__ import annotations

import io

from tilefit.batch.progress import Progress
from tilefit.batch.row import Row, error_row

OK = Row(
    "s",
    "t",
    None,
    "diagnose",
    "fits",
    None,
    None,
    None,
    None,
    None,
    0,
    0,
    None,
    None,
    None,
    None,
    0.1,
)
BAD = error_row("s", "t", "diagnose", "broken")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_line_shows_count_rate_eta_and_errors() -> None:
    clock = Clock()
    out = io.StringIO()
    progress = Progress(out, enabled=True, clock=clock)
    progress.start(10)
    for row in (OK, OK, BAD, OK):
        clock.now += 0.5
        progress.advance(row)
    assert progress.line() == "4/10   40%  [#########...............]  2.0 tiles/s  ETA 3s  1 error"
    clock.now += 200
    assert "ETA 30s" not in progress.line()
    for _ in range(6):
        progress.advance(OK)
    progress.finish()
    text = out.getvalue()
    assert text.startswith("\r0/10    0%")
    assert text.endswith("10/10  100%  [########################]  0.0 tiles/s  1 error\x1b[K\n")


def test_long_runs_show_minutes_and_hours() -> None:
    clock = Clock()
    progress = Progress(io.StringIO(), enabled=True, clock=clock)
    progress.start(10_000)
    clock.now += 10
    progress.advance(OK)
    assert progress.line().endswith("ETA 27h46m")
    clock.now += 10
    for _ in range(199):
        progress.advance(OK)
    assert progress.line().endswith("ETA 16m20s")


def test_quiet_when_not_a_terminal() -> None:
    out = io.StringIO()
    progress = Progress.for_terminal(out)
    progress.start(3)
    progress.advance(OK)
    progress.finish()
    assert out.getvalue() == ""
