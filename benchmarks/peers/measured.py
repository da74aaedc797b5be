"""One command in a process of its own, measured whole: wall seconds, CPU seconds (user +
system, its waited-for children included) and the most memory it held (the largest
resident set of it and its children), as ``/usr/bin/time`` reports them, from
``os.wait4``. Its output goes to files, read back when it ends; one that outlives its
timeout is killed with its process group. ``memory_cap`` (bytes) caps its address space,
so that a peer that would take the shared machine's memory fails instead.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

POLL = 0.02


@dataclass(frozen=True)
class Measured:
    """``returncode`` None: killed at its timeout."""

    returncode: int | None
    stdout: str
    stderr: str
    wall: float
    cpu: float
    max_rss: int
    """bytes"""


def run_measured(command: list[str], timeout: float, memory_cap: int | None = None) -> Measured:
    with tempfile.TemporaryDirectory(prefix="measured-") as folder:
        out, err = Path(folder) / "out", Path(folder) / "err"
        with out.open("wb") as stdout, err.open("wb") as stderr:
            began = time.monotonic()
            process = subprocess.Popen(
                command,
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,  # its own group, killed whole at the timeout
                preexec_fn=None if memory_cap is None else _capped(memory_cap),
            )
            status, usage = _wait(process.pid, began + timeout)
            wall = time.monotonic() - began
        code = None if status is None else os.waitstatus_to_exitcode(status)
        return Measured(
            code,
            out.read_text(encoding="utf-8", errors="replace"),
            err.read_text(encoding="utf-8", errors="replace"),
            wall,
            usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss * 1024,  # Linux counts kilobytes
        )


def _wait(pid: int, deadline: float) -> tuple[int | None, resource.struct_rusage]:
    """The process's wait status (None: killed at the deadline) and its usage."""
    while time.monotonic() < deadline:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return status, usage
        time.sleep(POLL)
    os.killpg(pid, signal.SIGKILL)
    _, _, usage = os.wait4(pid, 0)
    return None, usage


def _capped(limit: int) -> Callable[[], None]:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return cap
