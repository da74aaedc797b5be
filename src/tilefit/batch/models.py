"""``tilefit batch`` over TPU-MLIR runs, summarised per model (one trace each): the
summary's text (``tilefit.cli.summary``) and ``--json``'s ``tpumlir_models``
(``tilefit.output.jsonout``).

The batch decides every attempt of every trace (``tilefit import tpumlir``'s captures);
per trace this says how many attempts it holds, how many TPU-MLIR's allocator failed,
and of those how many were fragmentation (the verdict places them: a placement existed),
capacity (no placement exists: a bound, or the search, proves it) and undecided (no
verdict within the time limit, or an error), and the slices fragmentation cost: over the
fragmentation attempts, how many more slices their group ended with than each tried
(``outcome``; those whose group no later attempt placed are counted apart, as given up).
Which attempts failed and what their group ended with is read again from the trace (the
batch's rows keep the verdicts): a trace that cannot be read again is left out, and
said.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tilefit.model.errors import InputError
from tilefit.search.routes import INFEASIBLE, SOLVED
from tilefit.verdicts.verdict import Verdict

if TYPE_CHECKING:
    from tilefit.batch.row import Row

TRACE = ".lmem_assign.log"
_PLACED = frozenset({Verdict.FITS.value, Verdict.FRAGMENTATION.value, SOLVED})
"""A row's verdict (diagnose) or status (solve) that comes with a placement."""
_NO_PLACEMENT = frozenset({Verdict.CAPACITY.value, Verdict.INFEASIBLE.value, INFEASIBLE})
"""One that proves none exists."""


@dataclass(frozen=True, slots=True)
class ModelRow:
    """One trace's attempts as the batch decided them."""

    model: str
    trace: str
    attempts: int
    failed: int
    fragmentation: int
    capacity: int
    undecided: int
    slices_cost: int  # over the fragmentation attempts whose group ended placed
    given_up: int  # fragmentation attempts whose group no later attempt placed


def model_rows(rows: Sequence[Row]) -> tuple[list[ModelRow], list[str]]:
    """Per trace among the rows' sources, its summary; and, for each trace that cannot be
    read again, one line saying why."""
    by_trace: dict[str, dict[str, Row]] = {}
    for row in rows:
        path = row.source.split("#", 1)[0]
        if path.endswith(TRACE):
            by_trace.setdefault(path, {})[row.name] = row
    found, missing = [], []
    for trace, named in by_trace.items():
        try:
            found.append(_summary(trace, named))
        except InputError as error:
            missing.append(f"{trace}: not read again ({error.rule})")
    return found, missing


def _summary(trace: str, named: dict[str, Row]) -> ModelRow:
    from tilefit.toolchains import read
    from tilefit.toolchains.tpumlir.words import group_words

    imported = read("tpumlir", [trace]).imported
    failed = fragmentation = capacity = cost = given_up = 0
    for item in imported:
        capture = item.capture
        if capture.observed_failed is None:  # TPU-MLIR placed it
            continue
        failed += 1
        row = named.get(capture.name)
        verdict = None if row is None or row.error else row.verdict
        if verdict in _NO_PLACEMENT:
            capacity += 1
        elif verdict in _PLACED:
            fragmentation += 1
            words = group_words(capture)
            if words is None or words.cost is None:
                given_up += 1
            else:
                cost += words.cost
    model = Path(trace).name.removesuffix(TRACE)
    undecided = failed - fragmentation - capacity
    return ModelRow(
        model, trace, len(imported), failed, fragmentation, capacity, undecided, cost, given_up
    )


def cost_text(row: ModelRow) -> str:
    """``+2`` (``+2, 1 given up``); ``-`` without a fragmentation attempt."""
    if not row.fragmentation:
        return "-"
    return f"+{row.slices_cost}" + (f", {row.given_up} given up" if row.given_up else "")
