"""SearchParams: every group validated when made, each field by a rule, nothing global."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from tilefit.search import params
from tilefit.search.params import (
    DEFAULT,
    AnnealParams,
    ClosestParams,
    ExactParams,
    FindParams,
    LeastParams,
    PortfolioParams,
    Prunings,
    SearchParams,
    Tuned,
    ruled,
)
from tilefit.search.proofs.choice import Choice, ChoiceParams
from tilefit.search.routes import Routes, registered
from tilefit.search.sat.route import Cpsat, CpsatParams
from tilefit.search.sat.sink import Sink, SinkParams
from tilefit.search.stretches import Stretches, StretchesParams

OWNED = (ChoiceParams, CpsatParams, StretchesParams)
GROUPS = (ExactParams, PortfolioParams, FindParams, AnnealParams, ClosestParams, LeastParams)


def test_the_defaults_are_valid_and_frozen() -> None:
    assert SearchParams() == DEFAULT
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT.exact = ExactParams()  # type: ignore[misc]
    assert DEFAULT.routes == Routes() and DEFAULT.prunings == Prunings()


@pytest.mark.parametrize("group", (*GROUPS, *OWNED), ids=lambda g: g.__name__)
def test_every_field_has_a_rule_that_refuses_a_wrong_value(group: type) -> None:
    """Each field, given a value of the wrong kind, is refused in one ValueError that
    names the group and the field (no field goes unchecked)."""
    for f in dataclasses.fields(group):
        with pytest.raises(ValueError, match=rf"^{group.__name__}\.{f.name}: "):
            group(**{f.name: "nonsense"})
        with pytest.raises(ValueError, match=rf"^{group.__name__}\.{f.name}: "):
            group(**{f.name: -1 if not isinstance(f.default, tuple) else (-1,)})


@pytest.mark.parametrize(
    ("made", "message"),
    [
        (lambda: ExactParams(orderings=("WAX",)), "orderings: 'WAX' is not an order"),
        (lambda: ExactParams(orderings=()), "orderings: give at least one value"),
        (lambda: ExactParams(chunk=0), "chunk: 0 is not a whole number above 0"),
        (lambda: ExactParams(chunk=2.5), "chunk: 2.5 is not a whole number"),
        (lambda: PortfolioParams(step_share=1.5), r"step_share: 1.5 is not a number in \(0, 1\]"),
        (lambda: PortfolioParams(grace=True), "grace: True is not a number above 0"),
        (lambda: FindParams(anneal_shares=(0.5, 1.2)), r"1.2 is not a number in \[0, 1\]"),
        (lambda: AnnealParams(temperature=0.0), "temperature: 0.0 is not a number above 0"),
        (lambda: Prunings(twin=1), "Prunings.twin: 1 is not a bool"),  # type: ignore[arg-type]
        (lambda: SearchParams(exact=FindParams()), "SearchParams.exact: .* is not a ExactParams"),  # type: ignore[arg-type]
        (lambda: SearchParams(routes=frozenset()), "SearchParams.routes"),  # type: ignore[arg-type]
        (lambda: SearchParams(tuned=(ExactParams(),)), "ExactParams.* is no route's own group"),
        (lambda: SearchParams(tuned=(CpsatParams(), CpsatParams())), "a group given twice"),
    ],
)
def test_bad_values_are_refused_with_their_place(made: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        made()  # type: ignore[operator]


def test_boundaries_of_the_rules_hold() -> None:
    assert ExactParams(copy_limit=0, trail_start=0).copy_limit == 0  # count: 0 is one
    assert PortfolioParams(step_share=1.0).step_share == 1.0  # share: (0, 1]
    assert FindParams(anneal_shares=(0.0,)).anneal_shares == (0.0,)  # fraction: [0, 1]
    assert ClosestParams(greedy_rounds=0).greedy_rounds == 0
    assert Prunings.none() == Prunings(False, False, False, False)
    assert SearchParams.only(["greedy"]).routes == Routes.only(["greedy"])


SEARCH = Path(params.__file__).resolve().parent
# Module constants that are not tuning values: vocabularies, array layouts, the kernel's
# compiled mask, a rule of the extended capture, the compilation's measured quiet time,
# the problem's measured cost of building the search model, numba's options for a kernel
# without wrappers.
KEPT = re.compile(
    r"^(STATUSES|PIECES|MEMBERS|ALL"
    r"|EXACT_SEARCH|SEARCH_PARTIAL|SEARCH_DESCENT|LEARNED|KEY_LETTERS|DEFAULT|KEYS|INF"
    r"|RUNNING|FOUND|EXHAUSTED|GROW"
    r"|[FCT]_\w+|N[FCP]|CLOCK_EVERY|OVERFLOW_RANGE|OVERFLOW_ELEMENTS|MODULUS|QUIET_SECONDS"
    r"|SEARCH_DIR|KERNEL_MODULES|COMPILED|FIXED_ORDERS|MODEL_PER_REQUEST|UNITS_PER_REQUEST|DEFAULT_CHOICE"
    r"|WRAPPERS_OFF"
    r"|[FTG])$"  # F, T, G: type variables
)


def test_no_tuning_value_sits_in_a_module_global() -> None:
    """Every upper-case module constant of tilefit.search is one of the kinds above:
    a new tuning value goes into SearchParams, not a module."""
    found = []
    for path in sorted(SEARCH.rglob("*.py")):
        for line in path.read_text().splitlines():
            match = re.match(r"^([A-Z][A-Z0-9_]*)(?::[^=]+)? = ", line)
            if match and not KEPT.match(match.group(1)):
                found.append(f"{path.relative_to(SEARCH)}: {match.group(1)}")
    assert found == []


def test_each_route_s_own_group_lives_with_the_route() -> None:
    owners = {r.tuning: r for r in registered() if r.tuning is not None}
    assert owners == {
        ChoiceParams: Choice,
        CpsatParams: Cpsat,
        StretchesParams: Stretches,
        SinkParams: Sink,
    }
    # By default its defaults; given, the one given, the others untouched.
    assert DEFAULT.of(CpsatParams) == CpsatParams()
    tuned = DEFAULT.tune(CpsatParams(proves=True), ChoiceParams(nodes=5))
    assert tuned.of(CpsatParams).proves and tuned.of(ChoiceParams).nodes == 5
    assert tuned.of(StretchesParams) == StretchesParams()
    again = tuned.tune(CpsatParams(seed=3))
    assert again.of(CpsatParams) == CpsatParams(seed=3) and again.of(ChoiceParams).nodes == 5


def test_a_field_is_declared_once_with_its_rule() -> None:
    @dataclasses.dataclass(frozen=True)
    class Mine(Tuned):
        count: int = ruled(3, "whole")

    assert Mine().count == 3
    with pytest.raises(ValueError, match=r"Mine.count: 0 is not a whole number above 0"):
        Mine(count=0)

    @dataclasses.dataclass(frozen=True)
    class Unruled(Tuned):
        count: int = 3

    with pytest.raises(TypeError, match="Unruled: no rule for count"):
        Unruled()
    with pytest.raises(ValueError, match="no rule named 'odd'"):
        ruled(3, "odd")
