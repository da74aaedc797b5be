"""The runnable scripts in examples/ run from the repository root and say what they should."""

from __future__ import annotations

import subprocess
import sys

from checkout import ROOT


def test_retry_chain_script() -> None:
    result = subprocess.run(
        [sys.executable, "examples/retry_chain.py", "examples/0-0.json", "examples/1-0.json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.splitlines() == [
        "0-0: placed, rescued by long-lived/first-fit",
        "1-0: no placement can exist, 16,328 B over at step 54; largest there: m3.l3.mlp_down.in16",
    ]
