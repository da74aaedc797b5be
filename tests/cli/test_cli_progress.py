"""Progress on long work (issue 27, item 8): `diagnose` and `solve` on a terminal draw one
line on stderr (what runs, the bracket of the least top where there is one, the time left)
and say nothing when stderr is not a terminal or with --json. Before, they waited in
silence."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tilefit.cli.progress import CLEAR, TerminalWatch
from tilefit.formats.save import write_capture
from tilefit.generate.planted import PlantedRecipe, planted_tile

pytestmark = pytest.mark.skipif(os.name != "posix", reason="a pseudo-terminal and SIGALRM")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_line_says_the_time_left_the_stage_and_the_bracket() -> None:
    clock = Clock()
    watch = TerminalWatch(-1, clock)
    assert watch.line() == ""  # no stage yet: nothing to draw
    watch.text, watch.deadline = "search: placements (find) and proofs (prove) racing", 107.5
    assert watch.line() == "7.5 s left  search: placements (find) and proofs (prove) racing"
    watch.text = "least top"
    watch.lower, watch.best, watch.probing = 210_536, 250_568, 230_551
    clock.now = 109.0
    assert watch.line() == "0.0 s left  least top in [210,536, 250,568] B, trying 230,551"
    watch.width = 30
    assert watch.line() == "0.0 s left  least top in [..."


def tile(tmp_path: Path, density: float, requests: int) -> str:
    capture, _ = planted_tile(PlantedRecipe(requests=requests, density=density, seed=5))
    path = tmp_path / "tile.json"
    write_capture(capture, path)
    return str(path)


def interruptible() -> None:
    """In the child: Ctrl-C as a terminal delivers it, even when the suite itself was
    started with SIGINT ignored (a background job of a script), which a child inherits
    and tilefit, like any Unix tool, then keeps ignoring."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_on_a_terminal(
    argv: list[str], cwd: Path, interrupt_when: str | None = None
) -> tuple[int, str, str]:
    """``tilefit ARGV`` with stderr on a pseudo-terminal: exit code, stdout, stderr.
    ``interrupt_when``: Ctrl-C once that text has been drawn (an event, not a delay: a
    loaded machine takes longer to get there)."""
    ours, theirs = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tilefit", *argv],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=theirs,
        preexec_fn=interruptible,
    )
    os.close(theirs)
    err = b""
    while True:
        if interrupt_when is not None and interrupt_when in err.decode(errors="replace"):
            proc.send_signal(signal.SIGINT)
            interrupt_when = None
        ready, _, _ = select.select([ours], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(ours, 4096)
            except OSError:  # the terminal's other side closed: the command ended
                break
            if not chunk:
                break
            err += chunk
        elif proc.poll() is not None:
            break
    os.close(ours)
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    return proc.wait(timeout=60), out, err.decode()


def test_diagnose_draws_one_line_on_a_terminal(tmp_path: Path) -> None:
    path = tile(tmp_path, 0.99, 600)
    # 15% of the time left when the search is loaded is kept for the closest placement
    # (loading it is the search's share: seconds on a machine kept busy by three loops);
    # 10 s leave the search some after its loading, even there.
    code, out, err = run_on_a_terminal(["diagnose", path, "--time-limit", "10"], tmp_path)
    assert code == 1 and out.startswith("planted-")
    drawn = [line for line in err.split(CLEAR) if line]
    assert any(
        line.endswith(" s left  search: placements (find) and proofs (prove) racing")
        for line in drawn
    ), err
    assert any(line.endswith(" s left  the closest placement, in more memory") for line in drawn)
    assert err.endswith(CLEAR)  # the line is gone before the verdict prints
    # One line, redrawn in place (after the one-time compilation's own lines, if any).
    tail = err.rsplit("compiled in", 1)[-1].split("\n", 1)[-1] if "compiled in" in err else err
    assert "\n" not in tail


def test_solve_minimize_draws_the_bracket(tmp_path: Path) -> None:
    path = tile(tmp_path, 0.8, 40)
    # A limit a loaded machine keeps too: the portfolio's placement comes in well under a
    # second here, and the probes of the least top draw the bracket.
    code, out, err = run_on_a_terminal(
        ["solve", path, "--minimize", "--time-limit", "30"], tmp_path
    )
    assert code == 0 and out.startswith("solved:")
    assert " s left  least top in [" in err and "] B, trying " in err, err
    assert err.endswith(CLEAR)


def test_silent_with_json_and_when_stderr_is_no_terminal(tmp_path: Path) -> None:
    path = tile(tmp_path, 0.99, 600)
    code, out, err = run_on_a_terminal(
        ["diagnose", path, "--time-limit", "1.5", "--json"], tmp_path
    )
    assert code == 1 and out.startswith("{")
    assert " s left" not in err and CLEAR not in err
    piped = subprocess.run(
        [sys.executable, "-m", "tilefit", "diagnose", path, "--time-limit", "1.5"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert piped.returncode == 1
    assert " s left" not in piped.stderr and "\r" not in piped.stderr


def test_ctrl_c_clears_the_line_first(tmp_path: Path) -> None:
    path = tile(tmp_path, 0.99, 600)
    code, _, err = run_on_a_terminal(
        ["diagnose", path, "--time-limit", "60", "--workers", "1"],
        tmp_path,
        interrupt_when=" s left  search: ",
    )
    assert code == 130
    assert " s left  search: " in err
    assert err.endswith(CLEAR + "tilefit: interrupted\r\n"), repr(err[-200:])


def test_the_watch_starts_no_thread_and_leaves_no_timer(tmp_path: Path) -> None:
    """The portfolio forks its members only while the process has one thread: the watch
    redraws from a timer's signal instead, and takes it back when it ends."""
    import threading

    from tilefit.search.portfolio import _parallel

    before = signal.getsignal(signal.SIGALRM)
    threads = threading.active_count()
    with open(tmp_path / "err", "wb") as sink, TerminalWatch(sink.fileno()) as watch:
        watch.stage("search", time.monotonic() + 5)
        assert threading.active_count() == threads
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0
        if threads == 1 and "fork" in __import__("multiprocessing").get_all_start_methods():
            assert _parallel(2)
        time.sleep(0.6)  # a few redraws
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) == before
    drawn = (tmp_path / "err").read_bytes().decode()
    assert drawn.count(CLEAR) >= 3 and drawn.endswith(CLEAR)
