"""Issue 30, item 3: the choice proof (each block keeps one stretch of memory all its life).

The choice relaxation (``tilefit.search.proofs.choice``) asks less than the capture,
so it may only prove what brute force confirms: checked on drawn captures whose
memory is cut into stretches, with classes, interleaving, sequences and
conflicts. Then the shape it was built for (tile 847 of ``tilefit synth`` seed
7): a live peak that fits, a large activation only one stretch holds at one
step, interleaved ones only the other holds at another, and long-lived weights
that cannot be split between them. ``diagnose`` proves it infeasible by the
route ``choice``, and without that route it stays undetermined.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from hypothesis import strategies as st
from search_brute import brute_force
from search_captures import count_answers, stretched_captures

from tilefit.cli import main
from tilefit.cli.diagnose import diagnosis_lines
from tilefit.formats.save import write_capture
from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.model.deadline import Deadline
from tilefit.model.units import units_only
from tilefit.output.jsonout import diagnosis_json
from tilefit.output.schema import output_schema
from tilefit.report.evidence import evidence_html
from tilefit.search.blocks import build_model
from tilefit.search.params import SearchParams
from tilefit.search.proofs.choice import ChoiceParams, choice_core, choices_of, holds
from tilefit.search.routes import Routes, switchable
from tilefit.verdicts.diagnose import diagnose

EXAMPLES = 300


def _agrees_with_brute_force(capture: Capture) -> bool:
    """Whether the choice proof proved infeasible a capture whose every block has a
    base (then brute force must find no placement, for the capture nor for the core)."""
    model = build_model(capture)
    core = choice_core(model, Deadline.start(60.0))
    placement = brute_force(capture)
    if core is None:
        return False
    assert placement is None, f"choice proved a placeable capture infeasible: {capture}"
    ids = {model.blocks[k].id for k in core}
    assert brute_force(units_only(capture, ids)) is None
    return all(block.bases for block in model.blocks)  # not merely a block with no base


def test_the_choice_proof_never_contradicts_brute_force() -> None:
    proved, ran = count_answers(st.tuples(stretched_captures()), EXAMPLES, _agrees_with_brute_force)
    # Measured: 64 of the 300 drawn captures proven infeasible with a base for every block.
    assert proved >= 50
    assert ran == EXAMPLES


def _holds_where_a_placement_exists(capture: Capture) -> bool:
    """Whether brute force placed the capture (then the relaxation must hold: at every
    step, the choice the placement makes)."""
    if brute_force(capture) is None:
        return False
    model = build_model(capture)
    choices = choices_of(model)
    if choices is None:  # nothing to choose: the relaxation asks nothing of a placement
        return True
    blocks = list(range(len(model.blocks)))
    steps = list(range(len(choices.steps)))
    assert holds(choices, blocks, steps, Deadline.start(60.0)) is True
    return True


def test_the_relaxation_holds_wherever_brute_force_places() -> None:
    placed, ran = count_answers(
        st.tuples(stretched_captures()), EXAMPLES, _holds_where_a_placement_exists
    )
    # Measured: 182 of the 300 drawn captures have a placement.
    assert placed >= 150
    assert ran == EXAMPLES


def two_stretches(weights: int = 24) -> Capture:
    """The shape of tile 847, scaled: weights of 1,000-1,184 B (26,208 B for 24) live
    throughout; at step 1 an activation only the lower stretch holds (13,000 B left
    beside it), at step 3 interleaved activations only the upper one holds (13,200 B
    left). The live peak fits, but 24 weights fit in neither room at both steps: the
    rooms hold 26,200 B, 8 B short. Without the last weight they fit."""
    lower = Range(0, 37_000, "variables")
    upper = Range(41_096, 64_296, "interleaved variables")  # 23,200 B above a gap
    memory = Memory(64_296, (lower, upper), (0, 41_096), interleaved_offset=41_096)
    requests = [
        Request(f"w{k}", 1000 + 8 * k, 0, 5, 8, "resident", label=f"weight {k}")
        for k in range(weights)
    ]
    requests += [
        Request("act.big", 24_000, 1, 2, 8, "activation"),  # > 23,200: the lower only
        Request("act.i0", 5_000, 3, 4, 8, "activation", interleaved=True),
        Request("act.i1", 5_000, 3, 4, 8, "activation", interleaved=True),
    ]
    return Capture(name="two-stretches", horizon=5, memory=memory, requests=tuple(requests))


def test_the_shape_of_tile_847_is_proven_infeasible_by_the_choice() -> None:
    capture = two_stretches()
    found = diagnose(capture, time_limit=5.0, workers=1)
    assert found.verdict == "infeasible"
    assert found.route == "choice"
    assert found.subset is not None
    assert set(found.subset) == {f"w{k}" for k in range(24)} | {
        "act.big",
        "act.i0",
        "act.i1",
    }
    assert found.irreducible  # the exact search places it without any one of them
    # Where it holds, for a reader to check: the two steps, the two stretches.
    assert found.choice is not None
    assert found.choice.steps == (1, 3)
    assert found.choice.stretches == ((0, 37_000), (41_096, 64_296))
    text = "\n".join(diagnosis_lines(found))
    assert "no choice of stretches holds these" in text
    assert "at steps 1 and 3, no choice among the stretches [0, 37000), [41096, 64296)" in text
    html = evidence_html(capture, found, ())
    assert "(route <code>choice</code>): at steps 1 and 3, no choice among the stretches" in html
    out = diagnosis_json(found)
    jsonschema.validate(out, output_schema("diagnose"))
    assert out["search_route"] == "choice"
    assert out["choice"] == {
        "steps": [1, 3],
        "stretches": [{"start": 0, "end": 37_000}, {"start": 41_096, "end": 64_296}],
    }
    # The live peak fits, so no bound decides, and the route is what proves it.
    assert found.bound.lower_bound <= found.bound.available
    # Route ``stretches`` holds the same relaxation as its master: both off, nothing proves it.
    off = SearchParams(routes=Routes.without(["choice", "stretches"]))
    without = diagnose(capture, time_limit=2.0, workers=1, params=off)
    assert without.verdict == "undetermined"
    alone = SearchParams(routes=Routes.without(["choice"]))
    assert diagnose(capture, time_limit=30.0, workers=1, params=alone).route == "stretches"


def test_the_weights_that_fit_leave_the_choice_silent() -> None:
    """One weight fewer: 25,024 B, split between the rooms."""
    capture = two_stretches(weights=23)
    model = build_model(capture)
    assert choices_of(model) is not None
    assert choice_core(model, Deadline.start(30.0)) is None
    found = diagnose(capture, time_limit=5.0, workers=1)
    assert found.verdict == "fits"  # production's own strategy places it
    assert found.placement is not None
    assert found.choice is None
    out = diagnosis_json(found)
    jsonschema.validate(out, output_schema("diagnose"))
    assert out["choice"] is None


def test_one_stretch_leaves_no_choice() -> None:
    capture = replace(
        two_stretches(),
        memory=Memory(40_000, (Range(0, 40_000),)),
        requests=tuple(replace(r, interleaved=False) for r in two_stretches().requests),
    )
    model = build_model(capture)
    assert choices_of(model) is None
    assert choice_core(model, Deadline.start(30.0)) is None


def test_a_table_past_its_limit_is_not_built() -> None:
    """27 blocks over 3 steps: 81 entries; with a limit of 80 the proof stands aside."""
    model = build_model(two_stretches())
    assert choices_of(model, ChoiceParams(table_limit=81)) is not None
    assert choices_of(model, ChoiceParams(table_limit=80)) is None
    assert choice_core(model, Deadline.start(30.0), ChoiceParams(table_limit=80)) is None


def test_a_deadline_already_past_proves_nothing() -> None:
    model = build_model(two_stretches())
    assert choice_core(model, Deadline.start(0.0)) is None


def test_the_route_is_a_switchable_proof_of_the_prove_member() -> None:
    assert "choice" in switchable()
    assert not SearchParams(routes=Routes.without(["choice"])).routes.on("choice")


@pytest.mark.parametrize(
    ("field", "value"),
    [("nodes", 0), ("hulls", -1), ("share", 0.0), ("share", 1.5), ("table_limit", 0)],
)
def test_the_choice_parameters_are_checked(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=f"ChoiceParams.{field}"):
        ChoiceParams(**{field: value})  # type: ignore[arg-type]


def test_fewer_hull_constraints_still_prove_the_whole_stretches() -> None:
    """``hulls=0`` keeps only each stretch's own constraint: still sound, still proves
    the two-stretch shape (its argument needs no part of a stretch)."""
    model = build_model(two_stretches())
    assert choice_core(model, Deadline.start(30.0), ChoiceParams(hulls=0)) is not None


def test_solve_says_the_choice_proved_it_without_exhausting_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "two-stretches.json"
    write_capture(two_stretches(), path)
    assert main(["solve", str(path), "--workers", "1", "--time-limit", "5"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == [
        "infeasible: no placement exists",
        "  decided by the search: route choice of its prove member",
    ]
