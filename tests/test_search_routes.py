"""The search's vocabulary is defined once (``tilefit.search.routes``): the schema, the CLI's
texts and docs/json.md say the same names, and the members refuse to emit another."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from tilefit.model.capture import Capture, Conflict, Memory, Range, Request
from tilefit.search import routes
from tilefit.search.params import Prunings, SearchParams
from tilefit.search.routes import (
    FIND_ROUTES,
    PLACING_ROUTES,
    PROOF_ROUTES,
    PROVE_ROUTES,
    ROUTES,
    STATUSES,
    TIMEOUT,
    Routes,
    strategy_of,
)

ROOT = Path(__file__).parent.parent
SCHEMA = ROOT / "src" / "tilefit" / "schema" / "output-v1.schema.json"


def _diagnosis_schema() -> dict[str, object]:
    from tilefit.output.schema import output_schema

    found: dict[str, object] = output_schema("diagnose")["$defs"]["diagnose"]["properties"]
    return found


def test_each_route_belongs_to_one_member_and_every_name_is_unique() -> None:
    assert len(set(ROUTES)) == len(ROUTES) == len(FIND_ROUTES) + len(PROVE_ROUTES)
    assert set(PROOF_ROUTES) <= set(PROVE_ROUTES)
    assert set(PLACING_ROUTES) | set(PROOF_ROUTES) == {*ROUTES, routes.DESCENT, routes.REORDER}
    names = [r.name for r in routes.REGISTRY]
    assert len(set(names)) == len(names)
    assert tuple(names) == routes.DECIDING_ROUTES
    assert tuple(names) == (routes.PIECES, *ROUTES, routes.DESCENT, routes.REORDER)
    assert routes.route(routes.DESCENT).member == routes.CLOSEST
    assert strategy_of(routes.DESCENT) == routes.SEARCH_DESCENT
    assert [r.name for r in routes.REGISTRY if r.member == routes.BOUND] == [routes.PIECES]


def test_the_find_member_runs_each_of_its_routes_from_the_registry() -> None:
    from tilefit.search.local.find import STEPS

    assert list(STEPS) == list(FIND_ROUTES)
    assert [name for name, step in STEPS.items() if not step.needs_time] == ["greedy"]


def test_the_prove_member_runs_each_of_its_routes() -> None:
    first = [r.name for r in routes.first_proofs()]
    # then the turns: exact, anneal-turns
    assert first == ["elements", "choice", "steps", "stretches", "cpsat", "exact"]
    assert set(first) | {"exact", "anneal-turns"} == set(PROVE_ROUTES)


def test_the_registry_refuses_what_it_does_not_know() -> None:
    # ValueError, not assert: python -O keeps these checks.
    assert routes.route("steps").proves and not routes.route("steps").places
    with pytest.raises(ValueError, match="unknown search route"):
        routes.route("nope")
    with pytest.raises(ValueError, match="member"):
        routes.Route("x", "elsewhere", proves=True, places=False, says="x")
    with pytest.raises(ValueError, match="neither"):
        routes.Route("x", routes.FIND, proves=False, places=False, says="x")
    with pytest.raises(ValueError, match="runner"):
        routes.Route("x", routes.FIND, proves=False, places=True, says="x", runner="m:f")
    with pytest.raises(ValueError, match="has no runner"):
        routes.route("anneal").run()
    routes.check_answer(TIMEOUT, None)
    routes.check_answer("solved", "anneal")
    for status, name in (("solved", None), (TIMEOUT, "exact"), ("done", None), ("solved", "x")):
        with pytest.raises(ValueError):
            routes.check_answer(status, name)
    with pytest.raises(ValueError):
        routes.check_answer("solved", "exact", FIND_ROUTES)


def test_the_schema_enumerates_the_routes_and_the_statuses() -> None:
    from tilefit.verdicts.diagnose import SEARCH_ROUTES

    properties = _diagnosis_schema()
    route = properties["search_route"]["anyOf"][0]["enum"]  # type: ignore[index]
    assert route == list(SEARCH_ROUTES) == ["pieces", *ROUTES, "descent", "reorder"]
    assert '"greedy"' not in SCHEMA.read_text()  # the file does not repeat the registry
    text = SCHEMA.read_text()
    for status in STATUSES:
        assert f'"{status}"' in text


def test_json_doc_lists_each_member_s_routes() -> None:
    text = (ROOT / "docs" / "json.md").read_text()
    for member, names in (("find", FIND_ROUTES), ("prove", PROVE_ROUTES)):
        line = next(x for x in text.splitlines() if x.startswith(f"- the {member} member's"))
        assert re.findall(r"`([a-z-]+)`", line) == list(names)
    assert routes.SEARCH_PARTIAL in text and routes.EXACT_SEARCH in text
    assert f"`{routes.DESCENT}`" in text and routes.SEARCH_DESCENT in text


def test_search_md_explains_every_route() -> None:
    text = (ROOT / "docs" / "search.md").read_text()
    for name in routes.DECIDING_ROUTES:
        assert f"`{name}`" in text, name


def test_the_cli_explains_every_proof_in_the_registry_s_words() -> None:
    from tilefit.cli.diagnose import _verdict_lines
    from tilefit.verdicts.diagnose import diagnose

    d = diagnose(_elements_tile(), time_limit=5.0, workers=1)
    assert d.verdict == "infeasible" and d.route == "elements"
    text = "\n".join(_verdict_lines(d, None))
    assert f"proof: {routes.route('elements').says}" in text
    assert all(r.says for r in routes.REGISTRY)


def test_strategy_names_of_placements() -> None:
    assert strategy_of("exact") == "exact-search"
    assert strategy_of("anneal") == "search:anneal"
    assert strategy_of("anneal-turns") == "search:anneal-turns"
    placed = {strategy_of(route) for route in PLACING_ROUTES}
    assert routes.SEARCH_PARTIAL not in placed  # not a route's placement
    with pytest.raises(ValueError, match="unknown search route"):
        strategy_of("pieces")


def test_routes_switch_by_name_and_refuse_unknown_ones() -> None:
    assert all(Routes().on(r) for r in ROUTES)
    alone = Routes.only(["greedy"])
    assert [r for r in ROUTES if alone.on(r)] == ["greedy"]
    assert not Routes.without(["exact"]).on("exact")
    with pytest.raises(ValueError, match="unknown search route"):
        Routes.without(["segment"])
    with pytest.raises(ValueError, match="unknown search route"):
        Routes.only(["greedy", "nonsense"])


def test_prunings_are_not_routes_and_reach_the_budgets() -> None:
    from tilefit.search.proving import Proving

    names = {f.name for f in dataclasses.fields(Prunings)}
    assert not names & set(ROUTES)
    assert Prunings().stretch is False  # off unless asked for
    assert all(getattr(Prunings(), n) for n in names - {"stretch"})
    with pytest.raises(ValueError, match="unknown search route"):
        Routes.only(["stretch-waste"])  # a pruning is not a route
    on = SearchParams(routes=Routes.only(["exact"]), prunings=Prunings(stretch=True))
    proving = Proving(None, None, 1.0, 0.0, 1.0, on, [])  # type: ignore[arg-type]
    assert proving.budget(1.0).params.prunings.stretch is True
    assert proving.budgets[0].params is on


def test_a_decision_with_a_name_outside_the_lists_is_refused() -> None:
    from tilefit.model.placement import Placement
    from tilefit.search.decision import Decision

    placed = Placement("c", {})
    with pytest.raises(ValueError, match="is not one of"):
        Decision("solved", placed, "search:anneal")
    with pytest.raises(ValueError, match="unknown search status"):
        Decision("timed out", None, None)
    with pytest.raises(ValueError, match="with placement"):
        Decision("solved", None, "exact")
    assert Decision(TIMEOUT, None, None).route is None
    assert Decision.undecided(1.5).status == TIMEOUT


def _elements_tile() -> Capture:
    """Three requests in conflict with each other, each needing its own memory element, in
    a memory of two elements: the elements route's proof, and no bound shows it."""
    memory = Memory(64, (Range(0, 64),), elements=(0, 32))
    requests = tuple(Request(n, 8, 0, 1) for n in "abc")
    conflicts = tuple(Conflict(a, b) for a, b in (("a", "b"), ("a", "c"), ("b", "c")))
    return Capture("elements", 1, memory, requests, conflicts=conflicts)
