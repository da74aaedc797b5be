"""Ctrl-C sent to a CP-SAT solve in a child process once its search has started: the
route's and CP-SAT alone's tests share the child's set-up and the parent's side."""

from __future__ import annotations

import signal
import subprocess
import sys

PROLOGUE = """
import signal
signal.signal(signal.SIGINT, signal.default_int_handler)  # a background job inherits it ignored
from ortools.sat.python import cp_model
made = cp_model.CpSolver
class Logging(made):  # CP-SAT's log on stdout: the parent waits for its search to start
    def __init__(self):
        super().__init__()
        self.parameters.log_search_progress = True
cp_model.CpSolver = Logging
"""
"""The child's first lines: Ctrl-C raises, and every CP-SAT solver logs its progress."""


def interrupted(script: str) -> tuple[str, str, int]:
    """``PROLOGUE`` and ``script`` run in a child, Ctrl-C sent as soon as CP-SAT logs the
    start of its search: what the child printed after that, its stderr, its exit status."""
    child = subprocess.Popen(
        [sys.executable, "-c", PROLOGUE + script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    for line in child.stdout:
        if "Starting search" in line:
            break
    child.send_signal(signal.SIGINT)
    rest, errors = child.communicate(timeout=120)
    return rest, errors, child.returncode
