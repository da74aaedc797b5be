"""Every failed attempt of a TPU-MLIR run decided: fragmentation or capacity.

Each attempt is imported as ``tilefit import tpumlir`` imports it (one cyclic capture,
its origin in TPU-MLIR's words) and each failed one is decided by the decision ladder,
the code path ``tilefit diagnose`` runs (``tilefit.verdicts.diagnose``), with a time
limit each. Per run: the failed attempts decided, those that are fragmentation (each
placement refereed again here, within the chip's LMEM), those that are capacity (each
with the bound that proves it, ``tilefit.bounds.capacity.capacity_of``: live, support, aligned or
meeting), those the exact search proved (no bound), those undecided, and the slices
fragmentation cost: over the fragmentation attempts, how many more slices the group
ended with than the attempt tried (``tilefit.toolchains.tpumlir.outcome``), and how many
of those attempts were of a group the plan (``_final.mlir``) keeps: the search may go on
to group the ops otherwise, and then the slices a fragmentation cost were paid by a group
the compiled model does not run.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tilefit.toolchains import read
from tilefit.toolchains.tpumlir.final import read_final
from tilefit.toolchains.tpumlir.trace import read_trace
from tilefit.toolchains.tpumlir.words import group_words
from tilefit.verdicts.check import check
from tilefit.verdicts.diagnose import diagnose


@dataclass(frozen=True, slots=True)
class Decided:
    """One run's failed attempts, decided."""

    model: str
    chip: str
    failed: int
    fragmentation: tuple[str, ...]  # the captures' names
    capacity: Counter[str]  # the bound that proves each: live, support, aligned, meeting
    proven: int  # infeasible by the search, no bound
    undecided: int
    cost: int  # slices fragmentation cost, over those whose group ended placed
    given_up: int  # fragmentation attempts whose group no later attempt placed
    in_plan: int  # fragmentation attempts whose group (its ops) is one of the plan's
    rejected: tuple[str, ...]  # fragmentation placements the referee rejects
    seconds: float

    @property
    def decided(self) -> int:
        return len(self.fragmentation) + sum(self.capacity.values()) + self.proven


def decide_run(model: str, chip: str, trace: Path, time_limit: float) -> Decided:
    """Every failed attempt of the run's trace, decided (``trace``: its lmem_assign.log,
    its _final.mlir and _tpu_opt.mlir beside it)."""
    failed = {a.index for a in read_trace(trace) if not a.success}
    final = trace.with_name(trace.name.removesuffix(".lmem_assign.log") + "_final.mlir")
    planned = {
        frozenset(op.name for op in g.ops if op.kind not in ("tpu.Load", "tpu.Store"))
        for g in read_final(final)
    }
    imported = read("tpumlir", [str(trace)]).imported
    fragmentation: list[str] = []
    capacity: Counter[str] = Counter()
    rejected: list[str] = []
    proven = undecided = cost = given_up = in_plan = 0
    seconds = 0.0
    for index, item in enumerate(imported):
        if index not in failed:
            continue
        capture = item.capture
        began = time.perf_counter()
        answer = diagnose(capture, time_limit=time_limit, workers=1)
        seconds += time.perf_counter() - began
        if answer.verdict.places:
            fragmentation.append(capture.name)
            placement = answer.placement
            if placement is None or not check(capture, placement).valid:
                rejected.append(capture.name)
            words = group_words(capture)
            in_plan += words is not None and frozenset(words.ops or ()) in planned
            if words is None or words.cost is None:
                given_up += 1
            else:
                cost += words.cost
        elif answer.capacity is not None:  # the ladder's, by capacity_of's one rule
            capacity[answer.capacity.bound.value] += 1
        elif answer.verdict.proves:
            proven += 1
        else:
            undecided += 1
    return Decided(
        model, chip, len(failed), tuple(fragmentation), capacity, proven, undecided,
        cost, given_up, in_plan, tuple(rejected), seconds,
    )  # fmt: skip


def decided_table(rows: list[Decided]) -> str:
    lines = [
        "| model | chip | failed | decided | fragmentation | capacity (bound) "
        "| proven by search | undecided | slices fragmentation cost | of them in the plan "
        "| seconds |",
        "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        bounds = ", ".join(f"{name} {n}" for name, n in sorted(r.capacity.items()))
        total = sum(r.capacity.values())
        cost = f"+{r.cost}" + (f" ({r.given_up} given up)" if r.given_up else "")
        lines.append(
            f"| {r.model} | {r.chip} | {r.failed} | {r.decided} of {r.failed} "
            f"| {len(r.fragmentation)} | {total}{f' ({bounds})' if bounds else ''} "
            f"| {r.proven} | {r.undecided} | {cost if r.fragmentation else '-'} "
            f"| {r.in_plan if r.fragmentation else '-'} | {r.seconds:.1f} |"
        )
    return "\n".join(lines)


def decided_totals(rows: list[Decided]) -> str:
    """One line under the table: the totals over every run."""
    failed = sum(r.failed for r in rows)
    bounds: Counter[str] = Counter()
    for r in rows:
        bounds.update(r.capacity)
    named = ", ".join(f"{name} {n}" for name, n in sorted(bounds.items()))
    return (
        f"{sum(r.decided for r in rows)} of {failed} failed attempts decided: "
        f"{sum(len(r.fragmentation) for r in rows)} fragmentation "
        f"(slices cost +{sum(r.cost for r in rows)}, "
        f"{sum(r.in_plan for r in rows)} of them of a group in the plan, "
        f"{sum(len(r.rejected) for r in rows)} placements rejected), "
        f"{sum(bounds.values())} capacity ({named or 'none'}), "
        f"{sum(r.proven for r in rows)} proven by the search, "
        f"{sum(r.undecided for r in rows)} undecided"
    )
