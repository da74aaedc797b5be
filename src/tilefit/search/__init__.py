"""Exact search: find a placement or prove that none exists.

- ``solve(capture, time_limit, node_limit=None) -> SolveResult``
- ``minimize(capture, time_limit) -> MinimizeResult``: the lowest memory top
- ``irreducible_subset(capture, time_limit)``: a minimal set of units that
  still cannot be placed together
"""

from __future__ import annotations

from tilefit.search.iis import irreducible_subset
from tilefit.search.minimize import MinimizeResult, minimize
from tilefit.search.solver import INFEASIBLE, SOLVED, TIMEOUT, SolveResult, solve

__all__ = [
    "INFEASIBLE",
    "SOLVED",
    "TIMEOUT",
    "MinimizeResult",
    "SolveResult",
    "irreducible_subset",
    "minimize",
    "solve",
]
