"""One meaning per key across every ``--json`` (issue 46, item 2): ``irreducible_subset`` is a
subset shown irreducible, in ``solve`` and ``diagnose`` alike (``infeasible_subset`` is any
subset an infeasible answer came with); ``aligned_lower_bound`` is the aligned span, in
``bound`` and ``diagnose`` (the aligned bound's lowest top, which ``heap_standing`` and
``import`` compare heaps with, is ``aligned_top``). Before, ``diagnose`` gave any subset as
``irreducible_subset`` and the heap standing gave the top under the span's name."""

from __future__ import annotations

from dataclasses import replace

import jsonschema

from tilefit.bounds.deficit import bound
from tilefit.model.capture import Capture, Memory, Origin, Range, Request
from tilefit.output.jsonout import bound_json, diagnosis_json, heap_json, solve_json
from tilefit.output.schema import output_schema
from tilefit.verdicts.answer import Answer
from tilefit.verdicts.diagnose import diagnose
from tilefit.verdicts.heap import heap_standing
from tilefit.verdicts.verdict import Verdict


def short_stretch() -> Capture:
    """Infeasible by the pieces bound, whose subset is not shown irreducible: the 25 B
    scratch request fits no stretch of the 20 B aperture (``tests/bounds/test_pieces.py``)."""
    memory = Memory(100, (Range(0, 70, "main"), Range(80, 100, "aperture", ("scratch",))))
    requests = (Request("w", 60, 0, 4), Request("s", 25, 1, 2, cls="scratch"))
    return Capture("t", 4, memory, requests)


def test_diagnose_gives_a_subset_not_shown_irreducible_as_infeasible_subset_only() -> None:
    d = diagnose(short_stretch(), search=False)
    assert (d.verdict, d.subset, d.irreducible) == (Verdict.INFEASIBLE, ("w", "s"), False)
    out = diagnosis_json(d)
    jsonschema.validate(out, output_schema("diagnose"))
    assert out["irreducible_subset"] is None
    assert (out["infeasible_subset"], out["subset_irreducible"]) == (["w", "s"], False)
    shown = diagnosis_json(replace(d, irreducible=True))
    assert shown["irreducible_subset"] == shown["infeasible_subset"] == ["w", "s"]


def test_solve_and_diagnose_give_the_same_subset_keys_the_same_meaning() -> None:
    for irreducible in (False, True):
        answer = Answer(verdict=Verdict.INFEASIBLE, subset=("a", "b"), irreducible=irreducible)
        out = solve_json(answer)
        jsonschema.validate(out, output_schema("solve"))
        assert out["infeasible_subset"] == ["a", "b"]
        assert out["subset_irreducible"] is irreducible
        assert out["irreducible_subset"] == (["a", "b"] if irreducible else None)


def padded() -> Capture:
    """Three 100 B requests aligned to 64 from address 64: they span 356 B (the aligned
    lower bound), and no placement ends below 64 + 356 = 420 (the aligned top)."""
    requests = tuple(Request(k, 100, 0, 2, alignment=64) for k in "abc")
    memory = Memory(1024, (Range(64, 1024),))
    return Capture("padded", 2, memory, requests, origin=Origin("XLA", 512))


def test_aligned_lower_bound_is_the_span_and_aligned_top_the_top_everywhere() -> None:
    capture = padded()
    report = bound(capture)
    assert (report.aligned.span, report.aligned.top) == (356, 420)
    assert bound_json(report)["aligned_lower_bound"] == 356
    assert diagnosis_json(diagnose(capture, search=False))["aligned_lower_bound"] == 356
    standing = heap_standing(capture, report.lower_bound, None, aligned=report.aligned.top)
    out = heap_json(standing)
    assert out is not None and out["aligned_top"] == 420 and "aligned_lower_bound" not in out
