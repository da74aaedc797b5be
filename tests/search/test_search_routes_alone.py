"""Each route of the portfolio decides a tile on its own, every other route switched off.

The tiles are small (horizon 12) and none of the 16 strategies places them, so an
answer is the route's own; the route's name in the decision must be the one switched
on, a placement must pass the referee and a proof must be of a tile built infeasible.
Which tiles each route decides alone was measured once (with 2 s limits, at most 1.6 s
each); the limit here leaves room for a slow machine.
"""

from __future__ import annotations

from functools import cache

import pytest

from tilefit.generate.infeasible import infeasible_tiles
from tilefit.generate.planted import PlantedRecipe, planted_tile
from tilefit.model.capture import Capture
from tilefit.model.deadline import Deadline
from tilefit.search import routes
from tilefit.search.params import SearchParams
from tilefit.search.portfolio import decide
from tilefit.search.problem import Problem
from tilefit.search.routes import FIND, INFEASIBLE, PROVE, SOLVED, names, registered
from tilefit.verdicts.check import check
from tilefit.verdicts.diagnose import diagnose
from tilefit.verdicts.experiment import experiment

LIMIT = 8.0


def _planted(requests: int, density: float, seed: int) -> Capture:
    capture, placement = planted_tile(PlantedRecipe(requests, density, seed, horizon=12))
    assert check(capture, placement).valid
    assert not any(row.fits for row in experiment(capture))  # hard: no strategy fits
    return capture


@cache
def _infeasible(kind: str) -> Capture:
    return dict(infeasible_tiles(0, background=60))[kind]


TILES: dict[str, object] = {
    "greedy": lambda: _planted(40, 0.95, 3),
    "completion": lambda: _planted(40, 0.95, 2),
    "repair": lambda: _planted(80, 0.85, 0),
    "anneal": lambda: _planted(40, 0.95, 0),
    "elements": lambda: _infeasible("elements"),
    "choice": lambda: _infeasible("stretches"),
    "steps": lambda: _infeasible("alignment"),
    "stretches": lambda: _planted(80, 0.85, 0),  # placed stretch by stretch in 0.03 s
    "exact": lambda: _planted(80, 0.9, 1),
    "cpsat": lambda: _planted(80, 0.9, 1),
    "anneal-turns": lambda: _planted(40, 0.95, 2),
}


def test_every_route_has_a_tile() -> None:
    portfolio = [r for r in registered() if r.member in (FIND, PROVE)]
    assert set(TILES) == set(names(portfolio))


@pytest.mark.parametrize("route", list(TILES))
def test_the_route_decides_its_tile_alone(route: str) -> None:
    make = TILES[route]
    assert callable(make)
    capture: Capture = make()
    decision = decide(
        Problem(capture), Deadline.start(LIMIT), params=SearchParams.only([route]), workers=1
    )
    assert decision.route == route
    # each tile's answer is known: a proof route proves its infeasible tile, the others place
    infeasible = capture.name.startswith("infeasible-")
    assert infeasible == (route in ("elements", "choice", "steps"))
    assert decision.status == (INFEASIBLE if infeasible else SOLVED)
    if infeasible:
        assert routes.route(route).proves and decision.subset
    else:
        assert decision.placement is not None and check(capture, decision.placement).valid


def test_with_every_route_off_nothing_is_decided() -> None:
    decision = decide(
        Problem(_planted(40, 0.95, 3)), Deadline.start(1.0), params=SearchParams.only([]), workers=1
    )
    assert decision.status == "timeout" and decision.route is None


def test_diagnose_takes_the_routes_too() -> None:
    capture = _planted(40, 0.95, 3)  # greedy decides it alone (above)
    assert diagnose(capture, time_limit=2.0, params=SearchParams.only([])).verdict == "undetermined"
    only = diagnose(capture, time_limit=LIMIT, params=SearchParams.only(["greedy"]))
    assert only.verdict == "fragmentation" and only.route == "greedy"
