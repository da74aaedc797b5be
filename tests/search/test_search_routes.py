"""A route is one class that registers itself (``tilefit.search.routes``): the members run
the registry's routes, the schema, the CLI's texts and the docs say the same names, no
module but its own spells a route's name, and a route added in one new file reaches them
all."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from checkout import ROOT, TESTS

from tilefit.model.capture import Capture, Conflict, Memory, Range, Request
from tilefit.model.deadline import Deadline
from tilefit.search import routes
from tilefit.search.params import Prunings, SearchParams
from tilefit.search.routes import (
    CLOSEST,
    FIND,
    LEAST,
    PROVE,
    STATUSES,
    TIMEOUT,
    Route,
    Routes,
    Status,
    names,
    of_member,
    strategy_of,
    switchable,
)

SCHEMA = ROOT / "src" / "tilefit" / "schema" / "output-v1.schema.json"
SEARCH_MD = ROOT / "docs" / "search.md"


def _diagnosis_schema() -> dict[str, object]:
    from tilefit.output.schema import output_schema

    found: dict[str, object] = output_schema("diagnose")["$defs"]["diagnose"]["properties"]
    return found


def test_the_registry_holds_each_route_once_by_member_and_rank() -> None:
    every = routes.registered()
    assert len(set(names())) == len(every)
    assert names() == (
        "pieces",
        *("greedy", "completion", "repair", "anneal"),
        *("elements", "choice", "steps", "exact", "stretches", "cpsat", "anneal-turns"),
        "descent",
        "reorder",
        "sink",
    )
    assert [r.member for r in every] == sorted((r.member for r in every), key=routes.MEMBERS.index)
    assert names(of_member(CLOSEST)) == ("descent",) and names(of_member(LEAST)) == (
        "reorder",
        "sink",
    )
    assert switchable() == names()[1:]  # every route but the bound's
    assert all(r.says for r in every)


def test_the_find_member_runs_each_of_its_routes_from_the_registry() -> None:
    from tilefit.search.local.find import Find

    found = of_member(FIND)
    assert names(found) == ("greedy", "completion", "repair", "anneal")
    assert all(issubclass(r, Find) for r in found)
    assert [r.name for r in found if not r.needs_time] == ["greedy"]  # type: ignore[attr-defined]


def test_the_prove_member_runs_each_of_its_proofs_then_its_turns() -> None:
    from tilefit.search.portfolio import AnnealTurns, proofs

    first = names(proofs())
    assert first == ("elements", "choice", "steps", "exact", "stretches", "cpsat")
    assert set(first) | {AnnealTurns.name} == set(names(of_member(PROVE)))


def test_every_route_of_the_portfolio_runs_alone() -> None:
    """Each is a search (``run(problem, deadline, params)``): a find route alone is the
    find member with no other route on, ``anneal-turns`` alone the prove member's turns
    with no exact search."""
    from tilefit.search.local.find import Greedy
    from tilefit.search.portfolio import AnnealTurns
    from tilefit.search.problem import Problem
    from tilefit.search.proof import Search

    portfolio = [r for r in routes.registered() if r.member in (FIND, PROVE)]
    assert all(issubclass(r, Search) for r in portfolio)
    side_by_side = tuple(Request(n, 8, 0, 2) for n in "ab")
    two = Capture("two", 2, Memory(16, (Range(0, 16),)), side_by_side)
    for kind in (Greedy, AnnealTurns):
        found = kind().run(Problem(two), Deadline.start(30.0), SearchParams())
        assert (found.status, found.route) == (Status.SOLVED, kind.name)
    tight = Capture("tight", 2, Memory(8, (Range(0, 8),)), side_by_side)  # no placement
    found = Greedy().run(Problem(tight), Deadline.start(0.2), SearchParams())
    assert found.status == Status.TIMEOUT  # a find route proves nothing


def test_a_route_class_is_checked_as_it_is_made() -> None:
    # ValueError, not assert: python -O keeps these checks. A class that does not name
    # itself is a kind of route, and is not registered.
    class Kind(Route):
        member = FIND

    assert "Kind" not in {r.__name__ for r in routes.registered()}
    with pytest.raises(ValueError, match="member"):
        type("Elsewhere", (Route,), {"name": "x", "member": "elsewhere", "rank": 1} | _WORDS)
    with pytest.raises(ValueError, match="neither"):
        type("Idle", (Kind,), {"name": "x", "rank": 1, "says": "x"} | _NEITHER)
    with pytest.raises(ValueError, match="does not say its rank"):
        type("Unranked", (Kind,), {"name": "x"} | _WORDS)
    with pytest.raises(ValueError, match="registered already"):
        type("Again", (Kind,), {"name": "exact", "rank": 1} | _WORDS)
    with pytest.raises(ValueError, match="unknown search route"):
        routes.route("nope")
    assert routes.route("steps").proves and not routes.route("steps").places


_WORDS = {"proves": False, "places": True, "says": "x"}
_NEITHER = {"proves": False, "places": False}


def test_an_answer_is_checked_against_the_route_that_gives_it() -> None:
    from tilefit.model.placement import Placement
    from tilefit.search.outcome import Outcome

    routes.check_answer(TIMEOUT, None)
    routes.check_answer("solved", "anneal")
    for status, name in (("solved", None), (TIMEOUT, "exact"), ("done", None), ("solved", "x")):
        with pytest.raises(ValueError):
            routes.check_answer(status, name)
    with pytest.raises(ValueError, match="does not answer"):
        routes.check_answer("infeasible", "anneal")  # a find route proves nothing
    with pytest.raises(ValueError, match="does not answer"):
        routes.check_answer("solved", "steps")  # a proof places nothing
    with pytest.raises(ValueError, match="bound's"):
        routes.check_answer("infeasible", "pieces")  # not the search's
    placed = Placement("c", {})
    with pytest.raises(ValueError, match="unknown search route"):
        Outcome(status="solved", placement=placed, route="search:anneal")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown search status"):
        Outcome(status="timed out")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="with placement"):
        Outcome(status=Status.SOLVED, route="exact")
    assert Outcome(status=TIMEOUT).route is None
    assert Outcome.undecided(1.5).status is Status.TIMEOUT


def test_statuses_are_an_enum_that_json_writes_as_before() -> None:
    from tilefit.search.outcome import Outcome

    assert STATUSES == (Status.SOLVED, Status.INFEASIBLE, Status.TIMEOUT)
    assert [s.value for s in STATUSES] == ["solved", "infeasible", "timeout"]
    assert json.dumps({"status": Status.TIMEOUT}) == '{"status": "timeout"}'
    assert Outcome(status="timeout").status is Status.TIMEOUT  # type: ignore[arg-type]


def test_a_proof_that_answers_as_another_route_is_refused() -> None:
    from tilefit.search.outcome import Outcome
    from tilefit.search.problem import Problem
    from tilefit.search.proofs.steps import Steps

    class Liar(Steps):
        def run(self, problem: Problem, deadline: Deadline, params: SearchParams) -> Outcome:
            return Outcome(status="infeasible", route="elements")  # type: ignore[arg-type]

    with pytest.raises(ValueError, match="answered as route 'elements'"):
        Liar().decide(Problem(_elements_tile()), Deadline.start(1.0), SearchParams())


def test_the_schema_enumerates_the_routes_and_the_statuses() -> None:
    properties = _diagnosis_schema()
    route = properties["search_route"]["anyOf"][0]["enum"]  # type: ignore[index]
    assert route == list(names())
    assert '"greedy"' not in SCHEMA.read_text()  # the file does not repeat the registry
    text = SCHEMA.read_text()
    for status in STATUSES:
        assert f'"{status}"' in text


def test_json_doc_lists_each_member_s_routes() -> None:
    text = (ROOT / "docs" / "json.md").read_text()
    for member in (FIND, PROVE):
        line = next(x for x in text.splitlines() if x.startswith(f"- the {member} member's"))
        assert re.findall(r"`([a-z-]+)`", line) == list(names(of_member(member)))
    assert routes.SEARCH_PARTIAL in text and routes.EXACT_SEARCH in text
    assert "`descent`" in text and routes.SEARCH_DESCENT in text


def _committed_table() -> str:
    text = SEARCH_MD.read_text()
    start = text.index("<!-- routes: from the registry -->\n") + len(
        "<!-- routes: from the registry -->\n"
    )
    return text[start : text.index("<!-- end of routes -->")].rstrip("\n")


def test_search_md_s_table_of_routes_is_the_registry_s() -> None:
    assert _committed_table() == routes.routes_table()
    for name in names():
        assert f"`{name}`" in SEARCH_MD.read_text(), name


def test_the_cli_explains_every_proof_in_the_registry_s_words() -> None:
    from tilefit.cli.diagnose import _verdict_lines
    from tilefit.verdicts.diagnose import diagnose

    d = diagnose(_elements_tile(), time_limit=5.0, workers=1)
    assert d.verdict == "infeasible" and d.route == "elements"
    text = "\n".join(_verdict_lines(d, None))
    assert f"proof: {routes.route('elements').says}" in text


def test_strategy_names_of_placements() -> None:
    assert strategy_of("exact") == "exact-search"
    assert strategy_of("anneal") == "search:anneal"
    assert strategy_of("anneal-turns") == "search:anneal-turns"
    assert strategy_of("descent") == routes.SEARCH_DESCENT
    placed = {strategy_of(r.name) for r in routes.registered() if r.places}
    assert routes.SEARCH_PARTIAL not in placed  # not a route's placement
    with pytest.raises(ValueError, match="finds no placement"):
        strategy_of("pieces")
    with pytest.raises(ValueError, match="unknown search route"):
        strategy_of("nope")


def test_routes_switch_by_name_or_class_and_refuse_unknown_ones() -> None:
    from tilefit.search.closest import Descent
    from tilefit.search.local.reorder import Reorder

    assert all(Routes().on(r) for r in switchable())
    alone = Routes.only(["greedy"])
    assert [r for r in switchable() if alone.on(r)] == ["greedy"]
    assert not Routes.without(["exact"]).on("exact")
    # The one switch of every route: the closest placement's and the least rung's too.
    off = Routes.without([Descent.name, Reorder.name])
    assert not off.on(Descent) and not off.on(Reorder) and off.on("anneal")
    with pytest.raises(ValueError, match="unknown search route"):
        Routes.without(["segment"])
    with pytest.raises(ValueError, match="unknown search route"):
        Routes.only(["greedy", "nonsense"])
    with pytest.raises(ValueError, match="unknown search route"):
        Routes.without(["pieces"])  # a bound is not switched off


def test_prunings_are_not_routes_and_reach_the_budgets() -> None:
    from tilefit.search.exact.solve import Budget

    fields = {f.name for f in dataclasses.fields(Prunings)}
    assert not fields & set(names())
    assert Prunings().stretch is False  # off unless asked for
    assert all(getattr(Prunings(), n) for n in fields - {"stretch"})
    with pytest.raises(ValueError, match="unknown search route"):
        Routes.only(["stretch-waste"])  # a pruning is not a route
    on = SearchParams(routes=Routes.only(["exact"]), prunings=Prunings(stretch=True))
    assert Budget(Deadline.start(1.0), None, on).params.prunings.stretch is True


# Words that name routes but mean something else where they stand: a key of the capture
# format or of a JSON object, a column heading, ExecuTorch's own algorithm's name.
OTHER_MEANINGS = {
    ("bounds/aligned.py", "stretches"),  # the function of that name, in __all__
    ("cli/bound.py", "steps"),
    ("cli/diff.py", "steps"),
    ("formats/load.py", "elements"),
    ("toolchains/executorch/plan.py", "greedy"),
    ("toolchains/executorch/specs.py", "greedy"),
}


def _route_literals(source: str, spelled: set[str]) -> list[tuple[int, str]]:
    """Each string constant of ``source`` spelling one of ``spelled``, but as a dict's key
    or a subscript (a JSON key, whatever the word)."""
    tree = ast.parse(source)
    keys: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys |= {id(k) for k in node.keys if k is not None}
        elif isinstance(node, ast.Subscript):
            keys.add(id(node.slice))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in spelled and id(node) not in keys
    ]


def test_no_module_spells_another_s_route_name() -> None:
    source = ROOT / "src" / "tilefit"
    home = {r.name: Path(inspect.getfile(r)).resolve() for r in routes.registered()}
    found = []
    for path in sorted(source.rglob("*.py")):
        where = path.relative_to(source).as_posix()
        for line, name in _route_literals(path.read_text(), set(home)):
            if home[name] != path.resolve() and (where, name) not in OTHER_MEANINGS:
                found.append(f"{where}:{line}: {name!r}")
    assert found == []
    # The check finds one: a comparison with a route's name, not a JSON key.
    spelled = 'if answer.route == "exact":\n    out["steps"] = {"choice": 1}\n'
    assert _route_literals(spelled, set(home)) == [(1, "exact")]


ONE_FILE = '''
"""A route in one file: a class, nothing else."""

from tilefit.model.deadline import Deadline
from tilefit.search.outcome import Outcome
from tilefit.search.exact.route import proven
from tilefit.search.params import SearchParams
from tilefit.search.problem import Problem
from tilefit.search.proof import Proof


class Fixture(Proof):
    name = "fixture"
    rank = 5  # before every other proof
    proves, places = True, False
    says = "the fixture's own proof"

    def run(self, problem: Problem, deadline: Deadline, params: SearchParams) -> Outcome | None:
        if problem.capture.name != "elements":
            return None
        return proven(problem, problem.model, Fixture, deadline, params)
'''

REACHES = """
import json, sys
import jsonschema
sys.path.insert(0, sys.argv[1])
import fixture_route  # the one new file
sys.path[:0] = sys.argv[2:]  # the test's folder, and the helpers'
from test_search_routes import _elements_tile
from tilefit.cli.diagnose import _verdict_lines
from tilefit.output.jsonout import diagnosis_json
from tilefit.output.schema import output_schema
from tilefit.search.routes import routes_table
from tilefit.verdicts.diagnose import diagnose

d = diagnose(_elements_tile(), time_limit=5.0, workers=1)
schema = output_schema("diagnose")
jsonschema.validate(diagnosis_json(d), schema)
print(json.dumps({
    "verdict": str(d.verdict),
    "route": d.route,
    "subset": list(d.subset or ()),
    "enum": schema["$defs"]["diagnose"]["properties"]["search_route"]["anyOf"][0]["enum"],
    "lines": _verdict_lines(d, None),
    "table": routes_table(),
}))
"""


def test_a_route_added_in_one_file_reaches_every_consumer(tmp_path: Path) -> None:
    # In a process of its own: a route registered stays registered in that process.
    (tmp_path / "fixture_route.py").write_text(textwrap.dedent(ONE_FILE))
    here = Path(__file__).resolve().parent
    ran = subprocess.run(
        [sys.executable, "-c", REACHES, str(tmp_path), str(here), str(TESTS)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    seen = json.loads(ran.stdout.splitlines()[-1])
    # The portfolio's prove member ran it first, and the verdict names it.
    assert (seen["verdict"], seen["route"]) == ("infeasible", "fixture")
    assert seen["subset"] == ["a", "b", "c"]
    # The schema's enum, the CLI's proof sentence and docs/search.md's table have it.
    found, proving = names(of_member(FIND)), names(of_member(PROVE))
    assert seen["enum"] == ["pieces", *found, "fixture", *proving, "descent", "reorder", "sink"]
    assert "  proof: the fixture's own proof" in seen["lines"]
    assert "| `fixture` | prove | yes | - | the fixture's own proof |" in seen["table"]
    assert "fixture" not in names()  # not in this process


def _elements_tile() -> Capture:
    """Three requests in conflict with each other, each needing its own memory element, in
    a memory of two elements: the elements route's proof, and no bound shows it."""
    memory = Memory(64, (Range(0, 64),), elements=(0, 32))
    requests = tuple(Request(n, 8, 0, 1) for n in "abc")
    conflicts = tuple(Conflict(a, b) for a, b in (("a", "b"), ("a", "c"), ("b", "c")))
    return Capture("elements", 1, memory, requests, conflicts=conflicts)
