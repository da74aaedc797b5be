"""tilefit: replay a tile's allocation requests; tell fragmentation from a capacity deficit.

The Python API mirrors the commands::

    import tilefit
    capture = tilefit.read_capture("examples/0-0.json")
    tilefit.replay(capture)        # the production attempts, each failure with its holes
    tilefit.bound(capture)         # lower bound, peak, contributors, deficits
    tilefit.experiment(capture)    # the 16-strategy matrix
    tilefit.place(capture)         # the retry chain: production first, fallbacks only on failure
    tilefit.check(capture, p)      # the independent referee
    tilefit.solve(capture, time_limit=10)   # the search portfolio, as `tilefit solve`
    tilefit.diagnose(capture)      # the verdict with its evidence

The names are loaded on first use, so ``import tilefit`` is quick and only
the exact search (``solve``, ``minimize``, ``irreducible_subset``, and
``diagnose`` when the strategies cannot decide) loads numba. The modules
behind them live in packages by role (see ``docs/architecture.md``):
``tilefit.model``, ``tilefit.formats``, ``tilefit.engine``, ``tilefit.search``,
``tilefit.verdicts``, ``tilefit.output``, ``tilefit.batch`` and ``tilefit.cli``.
"""

# No imports at all at load, not even ``from __future__``: the ``tilefit`` command
# loads this package before its entry can answer Ctrl-C (tilefit/__main__.py), so
# every millisecond here is one where an interrupt is Python's traceback. ``typing``
# alone took 2-10 ms.
TYPE_CHECKING = False
__version__ = "0.11.1"

# Each name of the package face and the module that defines it.
_FACE = {
    "Capture": "tilefit.model.capture",
    "InputError": "tilefit.model.errors",
    "Placement": "tilefit.model.placement",
    "split_sequences": "tilefit.model.units",
    "read_capture": "tilefit.formats.load",
    "read_placement": "tilefit.formats.load",
    "write_capture": "tilefit.formats.save",
    "write_placement": "tilefit.formats.save",
    "run_strategy": "tilefit.engine.attempt",
    "bound": "tilefit.bounds.deficit",
    "check": "tilefit.verdicts.check",
    "replay": "tilefit.verdicts.replay",
    "place": "tilefit.verdicts.retry",
    "experiment": "tilefit.verdicts.experiment",
    "diagnose": "tilefit.verdicts.diagnose",
    "solve": "tilefit.verdicts.solving",
    "minimize": "tilefit.verdicts.solving",
    "irreducible_subset": "tilefit.verdicts.solving",
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

if TYPE_CHECKING:
    from typing import Any

    from tilefit.bounds.deficit import bound
    from tilefit.engine.attempt import run_strategy
    from tilefit.formats.load import read_capture, read_placement
    from tilefit.formats.save import write_capture, write_placement
    from tilefit.model.capture import Capture
    from tilefit.model.errors import InputError
    from tilefit.model.placement import Placement
    from tilefit.model.units import split_sequences
    from tilefit.verdicts.check import check
    from tilefit.verdicts.diagnose import diagnose
    from tilefit.verdicts.experiment import experiment
    from tilefit.verdicts.replay import replay
    from tilefit.verdicts.retry import place
    from tilefit.verdicts.solving import irreducible_subset, minimize, solve
del TYPE_CHECKING  # not a name of the package face


def __getattr__(name: str) -> "Any":
    """Load a name of the package face on first use (PEP 562)."""
    module = _FACE.get(name)
    if module is None:
        raise AttributeError(f"module 'tilefit' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_FACE})
