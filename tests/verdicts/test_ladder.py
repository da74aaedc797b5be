"""The decision ladder (issue 36): ``diagnose`` and ``solve`` climb one ladder with one
deadline, every placement leaves through one refereed exit, the problem's search model is
built once per command, and a route registered in one entry reaches every consumer."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import jsonschema
import pytest

from tilefit.generate.planted import PlantedRecipe, planted_tile
from tilefit.model.capture import Capture, Conflict, Memory, Range, Request
from tilefit.model.deadline import Deadline
from tilefit.model.placement import Placement
from tilefit.output.jsonout import diagnosis_json, solve_json
from tilefit.output.schema import output_schema
from tilefit.search import blocks
from tilefit.search.closest import Closest
from tilefit.search.outcome import Outcome
from tilefit.search.params import ClosestParams, SearchParams
from tilefit.search.routes import SEARCH_DESCENT
from tilefit.verdicts.climb import Climb, Entry
from tilefit.verdicts.diagnose import diagnose
from tilefit.verdicts.solving import solve
from tilefit.verdicts.verdict import Verdict


def _elements_tile() -> Capture:
    """Three requests in conflict with each other in a memory of two elements: no bound
    shows it, no strategy places it, and the elements route proves it."""
    memory = Memory(64, (Range(0, 64),), elements=(0, 32))
    requests = tuple(Request(n, 8, 0, 1) for n in "abc")
    conflicts = tuple(Conflict(a, b) for a, b in (("a", "b"), ("a", "c"), ("b", "c")))
    return Capture("elements", 1, memory, requests, conflicts=conflicts)


def _two() -> Capture:
    """Two 4-byte requests alive together in 8 bytes."""
    memory = Memory(8, (Range(0, 8),))
    return Capture("two", 1, memory, (Request("a", 4, 0, 1), Request("b", 4, 0, 1)))


@pytest.fixture(scope="module")
def dense() -> Capture:
    """300 requests at 100%: no member decides it in a second or two."""
    capture, _ = planted_tile(PlantedRecipe(requests=300, density=1.0, seed=5))
    return capture


def _undecided(monkeypatch: pytest.MonkeyPatch, **answer: Any) -> None:
    """The portfolio answers ``answer`` (a time-out unless given) without searching."""
    import tilefit.search.portfolio as portfolio

    def race(*_: Any) -> Outcome:
        return Outcome(**answer) if answer else Outcome.undecided(0.0)

    monkeypatch.setattr(portfolio.Portfolio, "run", race)


def _closest_is(monkeypatch: pytest.MonkeyPatch, found: Closest | None, heard: list[Any]) -> None:
    import tilefit.search.closest as closest

    def near(capture: Capture, deadline: Deadline, **kw: Any) -> Closest | None:
        heard.append(kw)
        return found

    monkeypatch.setattr(closest, "closest", near)


def _refused(capture: Capture, after: Callable[[], object]) -> str:
    with pytest.raises(RuntimeError, match="fails the checker") as raised:
        after()
    return str(raised.value)


def test_diagnose_and_solve_give_one_verdict_each_from_the_same_ladder(dense: Capture) -> None:
    fits = Capture("fits", 2, Memory(16, (Range(0, 16),)), (Request("a", 8, 0, 1),))
    short = Capture("short", 1, Memory(4, (Range(0, 4),)), (Request("a", 8, 0, 1),))
    expected = {"fits": "solved", "capacity": "infeasible", "infeasible": "infeasible"}
    expected |= {"fragmentation": "solved", "undetermined": "timeout"}
    seen = set()
    for capture in (fits, short, _elements_tile(), _two(), dense):
        d = diagnose(capture, time_limit=1.5, workers=1)
        s = solve(capture, 1.5, workers=1)
        assert expected[d.verdict] == s.status, capture.name
        seen.add(str(d.verdict))
    assert {"fits", "capacity", "infeasible"} <= seen


def test_a_placement_the_referee_rejects_is_an_internal_error_naming_the_route(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    capture = _elements_tile()
    broken = Placement("elements", {"a": 0, "b": 0, "c": 0})  # in conflict, in one element
    _undecided(monkeypatch, status="solved", placement=broken, route="anneal")
    for run in (lambda: diagnose(capture, time_limit=2.0), lambda: solve(capture, 2.0)):
        assert "route anneal" in _refused(capture, run)


def test_a_closest_placement_is_refereed_at_the_exit_too(monkeypatch: pytest.MonkeyPatch) -> None:
    capture = _elements_tile()
    _undecided(monkeypatch)
    broken = Closest(0, 64, SEARCH_DESCENT, Placement("elements", {"a": 0, "b": 0, "c": 0}))
    _closest_is(monkeypatch, broken, [])
    for run in (lambda: diagnose(capture, time_limit=2.0), lambda: solve(capture, 2.0)):
        assert "route descent" in _refused(capture, run)


@pytest.mark.parametrize("minimize", [False, True])
def test_a_closest_placement_within_the_memory_decides_the_tile(
    monkeypatch: pytest.MonkeyPatch, minimize: bool
) -> None:
    """The descent can end below the top: its placement is the tile's, refereed, route
    ``descent``, for diagnose and solve alike (and minimising, its top is the best)."""
    capture = _two()
    _undecided(monkeypatch)
    found = Closest(0, 8, SEARCH_DESCENT, Placement("two", {"a": 4, "b": 0}))
    _closest_is(monkeypatch, found, [])
    # Every strategy places this tile: enter the ladder where none has.
    from tilefit.search.problem import Problem
    from tilefit.verdicts import ladder

    climb = Climb(Entry.STRATEGIES, minimize=minimize, fallbacks=())
    monkeypatch.setattr(ladder, "_strategies", lambda *_: None)
    answer = ladder.climb_ladder(Problem(capture), Deadline.start(2.0), climb)
    assert (answer.verdict, answer.route, answer.search_status) == (
        Verdict.FRAGMENTATION,
        "descent",
        "solved",
    )
    assert answer.placement == found.placement and answer.bracket is None
    if minimize:
        assert answer.least is not None and answer.least.best_top == 8


def test_solve_runs_the_closest_placement_with_diagnose_s_parameters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before the ladder, solve gave the closest placement the default parameters whatever
    it was asked; now both commands hand it the same ones."""
    capture = _elements_tile()
    _undecided(monkeypatch)
    heard: list[Any] = []
    _closest_is(monkeypatch, None, heard)
    params = SearchParams(closest=ClosestParams(greedy_rounds=3, probe_seconds=0.25))
    diagnose(capture, time_limit=2.0, params=params)
    solve(capture, 2.0, params=params)
    assert len(heard) == 2 and heard[0] == heard[1]
    assert heard[1]["params"].greedy_rounds == 3 and heard[1]["params"].probe_seconds == 0.25


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Capture]]:
    """Every call of ``build_model``, wherever a module imported it from."""
    made: list[Capture] = []
    original = blocks.build_model

    def counting(capture: Capture, top: int | None = None) -> blocks.SearchModel:
        made.append(capture)
        return original(capture, top)

    for module in list(sys.modules.values()):
        if (module.__name__ or "").startswith("tilefit") and (
            getattr(module, "build_model", None) is original
        ):
            monkeypatch.setattr(module, "build_model", counting)
    yield made


def test_the_search_model_is_built_once_per_command(dense: Capture, builds: list[Capture]) -> None:
    d = diagnose(dense, time_limit=2.0, workers=1)
    assert d.verdict == "undetermined" and d.bracket is not None  # every rung ran
    assert sum(1 for c in builds if c is dense) == 1
    builds.clear()
    s = solve(dense, 2.0, workers=1, minimize=True)
    assert s.status == "timeout" and s.bracket is not None
    assert sum(1 for c in builds if c is dense) == 1
    builds.clear()
    assert diagnose(_two(), time_limit=2.0).verdict == "fits"
    assert builds == []  # no search, no model


def test_verdicts_say_what_they_imply_and_stay_strings_in_json() -> None:
    assert [v for v in Verdict if v.places] == [Verdict.FITS, Verdict.FRAGMENTATION]
    assert [v for v in Verdict if v.proves] == [Verdict.CAPACITY, Verdict.INFEASIBLE]
    assert not Verdict.UNDETERMINED.decided and Verdict.CAPACITY.decided
    assert json.dumps({"verdict": Verdict.FITS}) == '{"verdict": "fits"}'
    assert all(v.sentence and v.meaning for v in Verdict)
    assert Verdict("capacity") is Verdict.CAPACITY


def test_one_deadline_gives_back_what_is_not_the_limit_s() -> None:
    deadline = Deadline(100.0, 10.0)
    later = deadline.give_back(2.5)
    assert (deadline.at, later.at, later.given_back) == (110.0, 112.5, 2.5)
    assert Deadline.start(5.0).left(reserve=1.0) <= 4.0
    assert replace(later, limit=0.0).left() == 0.0
    with pytest.raises(ValueError, match="deadline"):
        Deadline(0.0, -1.0)


def _many(count: int) -> Capture:
    """``count`` requests one after another in time: every strategy places them."""
    memory = Memory(1024, (Range(0, 1024),))
    requests = tuple(Request(f"r{k}", 64, k, k + 2) for k in range(count))
    return Capture("many", count + 1, memory, requests)


def test_a_pass_asked_to_stop_is_cut_neither_fitting_nor_failing() -> None:
    from tilefit.engine.attempt import Prepared, run_strategy

    asked: list[int] = []

    def stop() -> bool:  # asked before each unit: "stop" from the 101st question on
        asked.append(1)
        return len(asked) > 100

    attempt = run_strategy(_many(300), "size/first-fit", stop)
    assert attempt.cut and not attempt.fits and attempt.placement is None
    assert attempt.failure is None and len(attempt.placed) == 100
    assert run_strategy(_many(300), "size/first-fit", lambda: False).fits
    # A large uniform capture is placed by the compiled loop: it is cut as well.
    prepared = Prepared.of(_many(6000))  # by the compiled loop
    assert prepared.uniform is not None
    asked.clear()
    bulk = run_strategy(prepared, "size/first-fit", lambda: stop() or len(asked) > 2)
    assert bulk.cut and bulk.placement is None and 0 < len(bulk.placed) < 6000
    assert run_strategy(prepared, "size/first-fit", lambda: False).fits


def test_the_deadline_cuts_a_stage_that_would_run_past_it() -> None:
    """A fallback whose fit takes 5 ms a unit would take 5 s on 1,000 units; with a limit
    of 0.3 s the strategies' rung cuts it at its first look at the clock and says so,
    and runs no pass after it."""
    import time as clock

    from tilefit.engine.fits import FITS, Fit
    from tilefit.engine.orders import ORDERS
    from tilefit.engine.strategy import Strategy
    from tilefit.search.problem import Problem
    from tilefit.verdicts import ladder

    calls: list[int] = []

    def slow(space: Any) -> int | None:
        calls.append(1)
        clock.sleep(0.005)
        return FITS[0].choose(space)

    capture = _many(1000)
    fallback = Strategy(ORDERS[0], Fit("slow", slow))
    climb = Climb(Entry.STRATEGIES, search=False, fallbacks=(fallback,))
    answer = ladder.climb_ladder(Problem(capture), Deadline.start(0.3), climb)
    assert len(calls) < 1000  # cut: the pass never reached its last unit
    assert any(c.startswith("the strategies' greedy passes (0 of") for c in answer.cut)
    assert answer.strategy != fallback.name


def test_diagnose_at_a_spent_limit_says_what_it_cut(tmp_path: Any) -> None:
    from tilefit.cli.diagnose import diagnosis_lines

    capture = replace(_many(1000), production=("size/first-fit",))
    d = diagnose(capture, time_limit=0.0)
    assert d.production[-1].cut and d.verdict == "undetermined"
    assert d.cut[0] == f"the production replay ({len(d.production[-1].placed)} units placed)"
    out = diagnosis_json(d)
    jsonschema.validate(out, output_schema("diagnose"))
    assert out["production"][-1]["status"] == "cut" and out["cut"] == list(d.cut)
    assert d.cut[1:] == (
        "the strategies' greedy passes (0 of 15 run)",
        "the search (no time left)",
        "the closest placement (no time left)",
    )
    text = "\n".join(diagnosis_lines(d))
    assert "size/first-fit: cut by the time limit" in text
    assert "cut short by the time limit: the production replay" in text


def test_minimising_an_infeasible_capture_still_bounds_the_least_top() -> None:
    answer = solve(_elements_tile(), 5.0, minimize=True, workers=1)
    assert answer.status == "infeasible" and answer.least is not None
    assert answer.least.best_top is None and answer.least.lower_bound > 0
    out = solve_json(answer)
    assert out["top_lower_bound"] == answer.least.lower_bound and out["optimal"] is False


def test_the_ladder_keeps_the_referee_s_time_for_the_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The exit's referee reads every request (22 s on a million): the rungs end that much
    before the limit. Here it is made to need the whole limit, so no rung runs at all."""
    from tilefit.search.problem import Problem
    from tilefit.verdicts import ladder, reserves

    climb = Climb(Entry.STRATEGIES)
    assert ladder.climb_ladder(Problem(_many(50)), Deadline.start(60.0), climb).verdict.places
    monkeypatch.setattr(reserves, "REFEREE_PER_REQUEST", 60.0 / 50)
    answer = ladder.climb_ladder(Problem(_many(50)), Deadline.start(60.0), climb)
    assert answer.verdict == Verdict.UNDETERMINED
    assert answer.cut[0].startswith("the strategies' greedy passes (0 of")
    assert Deadline(100.0, 10.0).sooner(4.0).at == 106.0
    assert Deadline(100.0, 10.0).sooner(40.0).limit == 0.0


def test_a_search_that_cannot_be_loaded_in_time_is_not_started(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Loading the search and building its model past the deadline (a large capture on a
    busy machine: S_1 under three busy loops ran 79 s for a 10 s limit) would only add
    seconds over the limit: the ladder cuts the search before loading it, and says so;
    nor does the closest placement build its extended capture's model then."""
    from tilefit.search import problem as problems
    from tilefit.search.problem import Problem
    from tilefit.verdicts import ladder

    climb = Climb(Entry.STRATEGIES, minimize=False, fallbacks=())
    with monkeypatch.context() as slow:
        slow.setattr(problems, "MODEL_PER_REQUEST", 1000.0)  # 3,000 s for 3 requests
        problem = Problem(_elements_tile())
        answer = ladder.climb_ladder(problem, Deadline.start(30.0), climb)
    assert "the search (no time left to load it)" in answer.cut
    assert "the closest placement (no time left)" in answer.cut
    assert "model" not in problem.built and answer.verdict == Verdict.UNDETERMINED
    # Built at its real cost, the search runs and proves it.
    searched = ladder.climb_ladder(Problem(_elements_tile()), Deadline.start(30.0), climb)
    assert searched.verdict == Verdict.INFEASIBLE and not searched.cut


def _uniform_problem() -> Any:
    """A small capture the engine places as a large uniform one (its arrays from the
    first request)."""
    from tilefit.search.problem import Problem

    requests = tuple(Request(f"r{k}", 8 + k % 5, k % 7, k % 7 + 3) for k in range(40))
    capture = Capture("uniform", 10, Memory(4096, (Range(0, 4096),)), requests)
    problem = Problem(capture, 0)
    assert problem.prepared.uniform is not None
    return problem


@pytest.fixture
def passes_run(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The strategies the ladder's greedy passes run, in turn."""
    from tilefit.verdicts import ladder

    ran: list[str] = []
    real = ladder.run_strategy

    def recorded(prepared: Any, strategy: Any, stop: Any = None) -> Any:
        ran.append(strategy.name)
        return real(prepared, strategy, stop)

    monkeypatch.setattr(ladder, "run_strategy", recorded)
    return ran


@pytest.mark.parametrize("minimize", [False, True])
def test_minimising_a_large_uniform_capture_runs_the_sweep_first(
    passes_run: list[str], minimize: bool
) -> None:
    """The sweep (lifetime/first-fit on a uniform capture) costs the requests only, where
    the other passes cost the requests alive at once too: minimising, it runs first. Not
    minimising, the first pass that fits decides, and the retry chain's order stays."""
    from tilefit.verdicts import ladder

    climb = Climb(Entry.STRATEGIES, minimize=minimize, search=False)
    ladder.climb_ladder(_uniform_problem(), Deadline.start(5.0), climb)
    assert passes_run[0] == ("lifetime/first-fit" if minimize else "long-lived/first-fit")


@pytest.mark.parametrize("loads", [True, False])
def test_the_passes_take_the_time_a_search_could_not_load_in(
    monkeypatch: pytest.MonkeyPatch, passes_run: list[str], loads: bool
) -> None:
    """Minimising, the passes stop at their share of the limit once one has fitted, to
    leave the rest to the search; where the search could not be loaded in the time left
    (a million requests), they go on instead."""
    from tilefit.search.params import LeastParams
    from tilefit.verdicts import ladder, reserves

    monkeypatch.setattr(reserves, "loads_in_time", lambda *_: loads)
    monkeypatch.setattr(ladder, "_compiled", lambda deadline, watch: deadline)
    monkeypatch.setattr(ladder, "least_rung", lambda problem, deadline, placed, *_: placed)
    params = replace(SearchParams(), least=LeastParams(passes_share=1e-9))
    climb = Climb(Entry.STRATEGIES, minimize=True, params=params)
    ladder.climb_ladder(_uniform_problem(), Deadline.start(5.0), climb)
    assert len(passes_run) == (1 if loads else 16)
