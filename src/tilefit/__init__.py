"""tilefit: replay a tile's allocation requests; tell fragmentation from a capacity deficit.

The Python API mirrors the commands::

    import tilefit
    capture = tilefit.read_capture("examples/0-0.json")
    tilefit.replay(capture)        # the production attempts, each failure with its holes
    tilefit.bound(capture)         # lower bound, peak, contributors, deficits
    tilefit.experiment(capture)    # the 16-strategy matrix
    tilefit.place(capture)         # the retry chain: production first, fallbacks only on failure
    tilefit.check(capture, p)      # the independent referee
    tilefit.solve(capture, time_limit=10)   # exact search
    tilefit.diagnose(capture)      # the verdict with its evidence

Names are imported on first use, so ``tilefit --version`` stays instant.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "Capture": "tilefit.capture",
    "Placement": "tilefit.placement",
    "InputError": "tilefit.errors",
    "read_capture": "tilefit.load",
    "read_placement": "tilefit.load",
    "write_capture": "tilefit.save",
    "write_placement": "tilefit.save",
    "bound": "tilefit.bounds",
    "check": "tilefit.check",
    "replay": "tilefit.replay",
    "run_strategy": "tilefit.engine",
    "experiment": "tilefit.experiment",
    "place": "tilefit.retry",
    "solve": "tilefit.search",
    "minimize": "tilefit.search",
    "irreducible_subset": "tilefit.search",
    "diagnose": "tilefit.diagnose",
    "split_sequences": "tilefit.units",
}

__all__ = [
    "Capture",
    "InputError",
    "Placement",
    "__version__",
    "bound",
    "check",
    "diagnose",
    "experiment",
    "irreducible_subset",
    "minimize",
    "place",
    "read_capture",
    "read_placement",
    "replay",
    "run_strategy",
    "solve",
    "split_sequences",
    "write_capture",
    "write_placement",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tilefit' has no attribute {name!r}")
    return getattr(import_module(module), name)


if TYPE_CHECKING:  # let type checkers and editors see the real names
    from tilefit.bounds import bound
    from tilefit.capture import Capture
    from tilefit.check import check
    from tilefit.diagnose import diagnose
    from tilefit.engine import run_strategy
    from tilefit.errors import InputError
    from tilefit.experiment import experiment
    from tilefit.load import read_capture, read_placement
    from tilefit.placement import Placement
    from tilefit.replay import replay
    from tilefit.retry import place
    from tilefit.save import write_capture, write_placement
    from tilefit.search import irreducible_subset, minimize, solve
    from tilefit.units import split_sequences
