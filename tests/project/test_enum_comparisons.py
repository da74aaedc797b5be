"""Verdicts and statuses are compared as enums (or the search's named statuses), never as
string literals, outside the output layer (issue 46, item 2): a misspelt ``"capacity"``
compares unequal without a word, a misspelt ``Verdict.CAPACTIY`` fails at once.

The output layer (``tilefit.output``: ``--json`` and the headline's JSON) writes the words
and may name them; everything else, the text renderers of the CLI, the plots and the report
included, asks the enum."""

from __future__ import annotations

import ast
from pathlib import Path

from checkout import ROOT

from tilefit.search.routes import STATUSES
from tilefit.verdicts.verdict import Verdict

SRC = ROOT / "src" / "tilefit"
OUTPUT_LAYER = ("output",)
WORDS = frozenset({*(v.value for v in Verdict), *STATUSES})
"""The verdicts and the search's statuses."""


def _words(node: ast.expr) -> set[str]:
    """The verdict or status words a literal operand of a comparison holds."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value} & WORDS
    if isinstance(node, ast.Set | ast.Tuple | ast.List):
        return set().union(*(_words(e) for e in node.elts)) if node.elts else set()
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) in {"frozenset", "set"}:
        return set().union(*(_words(a) for a in node.args)) if node.args else set()
    return set()


def string_comparisons(source: str) -> list[tuple[int, str]]:
    """(line, word) of every comparison with a verdict or status word as a literal; and of
    every collection of such literals bound to a name (compared through the name later)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                found += [(node.lineno, w) for w in sorted(_words(operand))]
        elif isinstance(node, ast.Assign) and not isinstance(node.value, ast.Constant):
            found += [(node.lineno, w) for w in sorted(_words(node.value))]
    return found


def _outside_output() -> list[Path]:
    return [p for p in sorted(SRC.rglob("*.py")) if p.relative_to(SRC).parts[0] not in OUTPUT_LAYER]


def test_no_verdict_or_status_is_compared_as_a_string_outside_the_output_layer() -> None:
    found = [
        f"{path.relative_to(SRC)}:{line}: {word!r}"
        for path in _outside_output()
        for line, word in string_comparisons(path.read_text(encoding="utf-8"))
    ]
    assert not found, "compare the enum (Verdict, the search's statuses):\n" + "\n".join(found)


def test_the_scan_finds_the_comparisons_it_forbids() -> None:
    """The scan is not vacuous: each form it forbids is found, the enum's is not."""
    forbidden = [
        'if d.verdict == "capacity": pass',
        'ok = status != "timeout"',
        'if v in ("fits", "solved"): pass',
        'FITS = frozenset({"fits", "solved"})',
        'if "infeasible" == verdict: pass',
    ]
    for source in forbidden:
        assert string_comparisons(source), source
    allowed = [
        "if d.verdict == Verdict.CAPACITY: pass",
        'text = "capacity: no placement can exist"',
        'row = {"verdict": "fits"}',
    ]
    for source in allowed:
        assert not string_comparisons(source), source
