"""What a benchmark needs beyond tilefit: one line naming the extra, not a traceback."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

INSTALL = "pip install 'tilefit[bench]'"


def need(module: str, script: str) -> None:
    """Stop with exit code 2 and one line when ``module`` is not installed."""
    if importlib.util.find_spec(module) is None:
        print(f"benchmarks/{Path(script).name} needs {module}: {INSTALL}", file=sys.stderr)
        raise SystemExit(2)
