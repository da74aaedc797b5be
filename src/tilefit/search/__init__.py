"""The search: find a placement or prove that none exists.

- ``exact_search(problem, deadline, node_limit=None) -> Outcome``: the exact search alone
- ``minimize(problem, deadline) -> Outcome``: the lowest memory top (``Outcome.least``)
- ``irreducible_subset(problem, deadline)``: a minimal set of units that
  still cannot be placed together
- ``tilefit.search.portfolio.decide(problem, deadline)``: every route at once, as
  ``tilefit.solve`` and ``tilefit.diagnose`` run it (through ``tilefit.verdicts.ladder``)

Each takes the ``Problem`` (``tilefit.search.problem``: the capture and what is built from
it once) and the ``Deadline`` (``tilefit.model.deadline``).

The package is arranged by role (docs/architecture.md): ``routes`` (the vocabulary and the
registry of routes), ``blocks`` (the problem as the search sees it), ``problem``,
``kernel/`` (the compiled branch-and-bound), ``proof`` (what runs a search), ``exact/``
(what drives the kernel, route ``exact``), ``proofs/``, ``local/`` (placements found fast,
never a proof), then ``closest``, ``sat``, ``stretches`` and ``portfolio`` on top.

The names below load on first use (PEP 562), so that ``tilefit.search.routes`` and
``tilefit.search.blocks`` can be read without loading numba.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tilefit.search.exact.minimize import minimize
    from tilefit.search.exact.route import exact_search
    from tilefit.search.exact.subset import irreducible_subset
    from tilefit.search.outcome import Outcome
    from tilefit.search.routes import INFEASIBLE, SOLVED, TIMEOUT

_WHERE = {
    "INFEASIBLE": "tilefit.search.routes",
    "SOLVED": "tilefit.search.routes",
    "TIMEOUT": "tilefit.search.routes",
    "minimize": "tilefit.search.exact.minimize",
    "Outcome": "tilefit.search.outcome",
    "exact_search": "tilefit.search.exact.route",
    "irreducible_subset": "tilefit.search.exact.subset",
}

__all__ = [
    "INFEASIBLE",
    "SOLVED",
    "TIMEOUT",
    "Outcome",
    "exact_search",
    "irreducible_subset",
    "minimize",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'tilefit.search' has no attribute {name!r}")
    return getattr(import_module(_WHERE[name]), name)
