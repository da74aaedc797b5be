"""The batch summary as text: tiles by verdict, what each strategy rescued, the tiles
with the most bytes that must leave, and the slowest.

Lists are ordered by value, then name, so the same rows print the same
summary; only the slowest-tiles section shows timing. ``--json`` gives the
same summary as ``tilefit.output.jsonout.summary_json``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilefit.batch.models import cost_text, model_rows
from tilefit.batch.store import SUMMARY_TOP, Store
from tilefit.cli.common import steps_text, table
from tilefit.search.routes import SOLVED, TIMEOUT
from tilefit.verdicts.verdict import Verdict

if TYPE_CHECKING:
    from tilefit.batch.row import Row

FITS = frozenset({Verdict.FITS.value, SOLVED})
"""The words of the ``verdict`` column that mean the tile fits as captured: the diagnose
mode's verdict, the solve mode's status (the replay and place modes write ``fits`` too)."""
STOPPED = frozenset({Verdict.UNDETERMINED.value, TIMEOUT})
"""The words of the ``verdict`` column of a tile whose search ran out of time before an
answer."""


def summary_lines(store: Store, top: int = SUMMARY_TOP) -> list[str]:
    """The summary as text lines."""
    total = store.count()
    errors = store.error_count()
    verdicts = store.verdicts()
    settings = store.settings()
    how = ""
    if settings is not None:
        how = f" (mode {settings.mode}{'' if settings.search else ', strategies only'})"
    lines = [f"{total} capture{'' if total == 1 else 's'} in {store.path.name}{how}", ""]
    rows = [["verdict", "tiles"], *([v, str(n)] for v, n in verdicts)]
    if errors:
        rows.append(["error", str(errors)])
    lines += table(rows)
    lines += ["", _fit_sentence(verdicts, errors)]
    stopped = sum(n for v, n in verdicts if v in STOPPED)
    if stopped and settings is not None and settings.search:
        lines.append(
            f"{stopped} {'tile' if stopped == 1 else 'tiles'} stopped at the time limit "
            f"({settings.time_limit:g} s each) before a verdict: a larger --time-limit "
            f"gives {'it' if stopped == 1 else 'them'} more"
        )

    lines += _model_lines(store.rows())  # TPU-MLIR traces: per model, its failed attempts

    rescued = store.rescued()
    if rescued:
        lines += ["", "tiles each strategy rescued (production failed, this strategy fits):"]
        lines += table([[s, str(n)] for s, n in rescued], indent="  ")

    worst = store.worst_deficits(top)
    if worst:
        lines += ["", "over capacity, by the bytes that must leave the worst window:"]
        head = [
            "name", "tile", "must leave", "windows", "worst window", "over", "lower bound",
            "available", "source",
        ]  # fmt: skip
        lines += table([head, *(_deficit_cells(r) for r in worst)], indent="  ")

    slowest = store.slowest(top)
    if slowest:
        lines += ["", "slowest tiles:"]
        cells = [[r.name, f"{r.seconds:.2f} s", r.verdict or "error", r.source] for r in slowest]
        lines += table(cells, indent="  ")

    if errors:
        lines += ["", f"errors ({errors}):"]
        lines += [f"  {r.name} ({r.source}): {r.error}" for r in store.errors(top)]
        if errors > top:
            lines.append(f"  ... and {errors - top} more (see --csv)")
    return lines


def _model_lines(rows: list[Row]) -> list[str]:
    """Per TPU-MLIR trace among the rows' sources, its failed attempts decided
    (``tilefit.batch.models``); none without one."""
    found, missing = model_rows(rows)
    if not found and not missing:
        return []
    head = [
        "model", "attempts", "failed", Verdict.FRAGMENTATION.value, Verdict.CAPACITY.value,
        "undecided", "slices fragmentation cost",
    ]  # fmt: skip
    cells = [
        [r.model, str(r.attempts), str(r.failed), str(r.fragmentation), str(r.capacity),
         str(r.undecided), cost_text(r)]
        for r in found
    ]  # fmt: skip
    lines = ["", "TPU-MLIR, per model (trace): its failed attempts decided"]
    lines += table([head, *cells], indent="  ") if cells else []
    lines += [f"  {said}" for said in missing]
    return lines


def _meaning(name: str) -> str:
    """A verdict's few words (``Verdict.meaning``); a batch status (``solve`` and ``place``
    modes) says nothing more than its name."""
    return Verdict(name).meaning if name in Verdict.__members__.values() else ""


def _fit_sentence(verdicts: list[tuple[str, int]], errors: int) -> str:
    misfits = [(v, n) for v, n in verdicts if v not in FITS]
    if not misfits and not errors:
        return "every tile fits."
    parts = []
    if misfits:
        detail = ", ".join(
            f"{v} {n}" + (f" ({_meaning(v)})" if _meaning(v) else "") for v, n in misfits
        )
        count = sum(n for _, n in misfits)
        verb = "tile does" if count == 1 else "tiles do"
        parts.append(f"{count} {verb} not fit as captured: {detail}")
    if errors:
        parts.append(f"{errors} could not be worked out (errors below)")
    return "not every tile fits: " + "; ".join(parts) + "."


def _deficit_cells(row: Row) -> list[str]:
    return [
        row.name,
        "" if row.tile is None else str(row.tile),
        _bytes(row.must_leave),
        "" if row.windows is None else str(row.windows),
        _window(row.worst_start, row.worst_end),
        _bytes(row.worst_excess),
        _bytes(row.lower_bound),
        _bytes(row.available),
        row.source,  # two tiles may share a name; their sources tell them apart
    ]


def _window(start: int | None, end: int | None) -> str:
    """The worst window's steps as `tilefit bound` writes them: ``54`` or ``[40, 43)``."""
    if start is None or end is None:
        return ""
    return steps_text(start, end)


def _bytes(value: int | None) -> str:
    return "" if value is None else f"{value:,}"
