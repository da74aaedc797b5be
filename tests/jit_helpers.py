"""Run a script in a fresh interpreter, compiled by numba or as plain Python."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def run_script(script: str, plain: bool) -> object:
    """The JSON the script prints, run with ``TILEFIT_NO_JIT=1`` when ``plain``.

    A fresh interpreter, since tilefit.search.kernel.jit chooses compiled or plain once, at import.
    """
    env = dict(os.environ)
    env.pop("TILEFIT_NO_JIT", None)
    if plain:
        env["TILEFIT_NO_JIT"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    result: object = json.loads(done.stdout)
    return result
