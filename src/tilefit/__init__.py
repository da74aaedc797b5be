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

The function names shadow the submodules of the same name (``tilefit.check``
is the function; the module is ``sys.modules["tilefit.check"]``).
"""

from __future__ import annotations

__version__ = "0.1.0"

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
