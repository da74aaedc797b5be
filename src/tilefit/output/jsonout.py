"""Every command's ``--json``: one function per result, one shape per concept.

The keys that ``capture-v1`` lists for each command come first and never
change; the rest is ours, and a concept has the same shape wherever it
appears:

- an attempt (``attempt_json``) in ``replay``, ``place`` and ``diagnose``;
- the unit an attempt failed on (``failure_json``), the object under ``failed``;
- a request live at the peak (``contributor_json``) in ``bound`` and ``diagnose``;
- an overloaded window (``window_json``) in ``bound``, ``diagnose`` and ``diff``;
- a diagnosis (``diagnosis_json``): ``diagnose``'s object, also ``whatif``'s before and after;
- a placement (``placement_json``): the placement file's object, or null;
- times in seconds, rounded to the millisecond.

The shapes are written down as JSON Schemas in ``tilefit.schema``
(``output_schema(command)``), and ``docs/json.md`` describes them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only the shapes: a command loads the verdicts it runs, no more
    from tilefit.batch.row import Row
    from tilefit.batch.store import Store
    from tilefit.bounds.aligned import AlignedBound
    from tilefit.bounds.capacity import Capacity
    from tilefit.bounds.deficit import BoundReport, Contributor
    from tilefit.bounds.overload import Window
    from tilefit.bounds.pieces import PiecesShort
    from tilefit.engine.attempt import Attempt, Failure
    from tilefit.model.capture import Capture, Range, Request
    from tilefit.model.placement import Placement
    from tilefit.search.bracket import Bracket
    from tilefit.search.closest import Closest
    from tilefit.search.proofs.choice import ChoiceWhere
    from tilefit.verdicts.answer import Answer
    from tilefit.verdicts.check import CheckResult, Violation
    from tilefit.verdicts.diagnose import Diagnosis
    from tilefit.verdicts.diff import CaptureDiff, RequestChange
    from tilefit.verdicts.experiment import ExperimentRow
    from tilefit.verdicts.heap import HeapStanding
    from tilefit.verdicts.replay import ReplayResult
    from tilefit.verdicts.retry import PlaceResult
    from tilefit.verdicts.whatif import WhatIf

Json = dict[str, Any]


# The shared concepts.


def seconds_json(seconds: float) -> float:
    return round(seconds, 3)


def placement_json(placement: Placement | None) -> Json | None:
    return None if placement is None else placement.to_json()


def failure_json(failure: Failure) -> Json:
    unit = failure.unit
    return {
        "id": unit.id,
        "size": unit.size,
        "alignment": unit.alignment,
        "class": unit.cls,
        "start": unit.start,
        "end": unit.end,
        "placed_before": failure.placed_before,
        "members": [m.id for m in unit.members] if unit.is_sequence else None,
    }


def attempt_json(attempt: Attempt) -> Json:
    failure = attempt.failure
    return {
        "strategy": attempt.strategy.name,
        "status": "cut" if attempt.cut else "fits" if failure is None else "failed",
        "failed": None if failure is None else failure_json(failure),
        "holes": [] if failure is None else [{"start": s, "end": e} for s, e in failure.holes],
        "peak_address": attempt.peak_address,
    }


def contributor_json(c: Contributor) -> Json:
    return {"id": c.id, "size": c.size, "class": c.cls, "alignment": c.alignment, "label": c.label}


def class_totals_json(report: BoundReport) -> list[Json]:
    return [{"class": cls, "size": size} for cls, size in report.class_totals]


def window_json(w: Window) -> Json:
    return {
        "start": w.start,
        "end": w.end,
        "worst_step": w.worst.start,
        "excess": w.excess,
        "must_leave": w.must_leave,
        "steps": [
            {
                "start": s.start,
                "end": s.end,
                "live": s.live,
                "over": s.over,
                "demand": s.demand,
                "usable": s.usable,
                "ranges": list(s.ranges),
                "excess": s.excess,
            }
            for s in w.steps
        ],
        "requests": [
            {
                "id": r.id,
                "size": r.size,
                "class": r.cls,
                "label": r.label,
                "source": r.source,
                "windows": r.windows,
            }
            for r in w.requests
        ],
        "by_source": [
            {"source": source, "bytes": total, "requests": count}
            for source, total, count in w.by_source
        ],
    }


def choice_json(c: ChoiceWhere | None) -> Json | None:
    if c is None:
        return None
    return {
        "steps": list(c.steps),
        "stretches": [{"start": a, "end": b} for a, b in c.stretches],
    }


def pieces_json(p: PiecesShort | None) -> Json | None:
    if p is None:
        return None
    return {
        "step": p.step,
        "demand": p.demand,
        "usable": p.usable,
        "union": [{"start": a, "end": b} for a, b in p.union],
        "requests": list(p.requests),
    }


# One function per command.


def bound_json(report: BoundReport) -> Json:
    from tilefit.bounds.capacity import capacity_of

    s = report.support
    return {
        "available": report.available,
        "lower_bound": report.lower_bound,
        "peak_step": report.peak_step,
        "deficit": report.deficit,
        "support_deficit": report.support_deficit,
        "contributors": [contributor_json(c) for c in report.contributors],
        "class_totals": class_totals_json(report),
        "support": {
            "step": s.step,
            "demand": s.demand,
            "capacity": s.capacity,
            "union": [{"start": start, "end": end} for start, end in s.union],
            "classes": list(s.classes),
            "ranges": list(s.ranges),
            "exhaustive": s.exhaustive,
        },
        "must_leave": report.must_leave,
        "overloaded_windows": [window_json(w) for w in report.windows],
        "pieces": pieces_json(report.pieces),
        "aligned_lower_bound": report.aligned_lower_bound,
        "aligned_deficit": report.aligned_deficit,
        "aligned": aligned_json(report.aligned),
        **meeting_json(report),
        "capacity": capacity_json(capacity_of(report)),
    }


def meeting_json(report: BoundReport) -> Json:
    """``{"meeting": ...}`` where a cyclic capture's lifetime wraps, else nothing."""
    m = report.meeting
    if m is None:
        return {}
    return {"meeting": {"weight": m.weight, "ids": list(m.ids), "deficit": report.meeting_deficit}}


def aligned_json(a: AlignedBound) -> Json:
    """The aligned lower bound's evidence (``tilefit.bounds.aligned``)."""
    return {
        "step": a.step,
        "live": a.live,
        "padding": a.padding,
        "stretches": a.stretches,
        "need": a.need,
        "top": a.top,
    }


def check_json(result: CheckResult) -> Json:
    from tilefit.verdicts.check import KINDS

    return {
        "valid": result.valid,
        "violations": [violation_json(v) for v in result.violations],
        "counts": {kind: result.count(kind) for kind in KINDS},
        "overlaps_not_listed": result.overlaps_not_listed,
    }


def violation_json(v: Violation) -> Json:
    return {"kind": v.kind, "ids": list(v.ids), "detail": v.detail}


def heap_json(standing: HeapStanding | None) -> Json | None:
    """Where an imported capture's own heap stands (null for a capture not imported)."""
    if standing is None:
        return None
    return {
        "tool": standing.tool,
        "plan": standing.plan,
        "heap": standing.heap,
        "lower_bound": standing.lower_bound,
        "aligned_top": standing.aligned_top,
        "best_top": standing.best_top,
        "proven": standing.proven,
        "optimal": standing.optimal,
        "above": standing.above,
        "placed": standing.placed,
        "text": standing.text,
    }


def replay_json(result: ReplayResult) -> Json:
    return {
        "capture": result.capture,
        "attempts": [attempt_json(a) for a in result.attempts],
        "observed": result.observed,
        "reproduced": result.reproduced,
    }


def experiment_json(rows: Iterable[ExperimentRow]) -> Json:
    return {
        "rows": [
            {
                "strategy": r.strategy,
                "fits": r.fits,
                "failed_id": r.failed_id,
                "peak_address": r.peak_address,
                "seconds": seconds_json(r.seconds),
                "split_sequences": r.split_sequences,
            }
            for r in rows
        ]
    }


def place_json(result: PlaceResult) -> Json:
    return {
        "status": result.status,
        "strategy": result.strategy,
        "placement": placement_json(result.placement),
        "fallback": result.fallback,
        "attempts": [attempt_json(a) for a in result.attempts],
    }


def solve_json(result: Answer, capture: Capture | None = None) -> Json:
    """``top_lower_bound``, ``best_top`` and ``optimal`` are null unless minimizing;
    ``headline`` is null unless ``capture``, the capture solved, is given and imported."""
    from tilefit.output.headline import answer_headline, headline_json

    least = result.least
    return {
        "status": result.status,
        "seconds": seconds_json(result.seconds),
        "placement": placement_json(result.placement),
        "nodes": result.nodes,
        "irreducible_subset": _subset(result.irreducible_subset),
        "infeasible_subset": _subset(result.subset),
        "subset_irreducible": result.irreducible,
        "top_lower_bound": None if least is None else least.lower_bound,
        "best_top": None if least is None else least.best_top,
        "optimal": None if least is None else least.optimal,
        "heap_standing": heap_json(result.heap),
        "closest": closest_json(result.closest),
        "bracket": bracket_json(result.bracket),
        "cut": list(result.cut),
        "headline": headline_json(None if capture is None else answer_headline(capture, result)),
    }


def diagnosis_json(d: Diagnosis, output: str | None = None) -> Json:
    """The spec's stable keys first, then the evidence; ``output``: where ``-o`` wrote the
    placement (named by the headline's command)."""
    from tilefit.output.headline import diagnosis_headline, headline_json

    report = d.bound
    return {
        "verdict": d.verdict,
        "strategy": d.strategy,
        "deficit": report.deficit,
        "support_deficit": report.support_deficit,
        "lower_bound": report.lower_bound,
        "available": report.available,
        "production_failed_id": d.production_failed_id,
        "capture": d.capture,
        "tile": d.tile,
        "peak_step": report.peak_step,
        "must_leave": report.must_leave,
        "production_failed_at_peak": d.production_failed_at_peak,
        "reproduced": d.reproduced,
        "production": [attempt_json(a) for a in d.production],
        "contributors": [contributor_json(c) for c in report.contributors],
        "class_totals": class_totals_json(report),
        "search_status": d.search_status,
        "irreducible_subset": _subset(d.irreducible_subset),
        "placement": placement_json(d.placement),
        "search_route": d.route,
        "subset_irreducible": d.irreducible,
        "infeasible_subset": _subset(d.subset),
        "capacity": capacity_json(d.capacity),
        "closest": closest_json(d.closest),
        "bracket": bracket_json(d.bracket),
        "overloaded_windows": [window_json(w) for w in report.windows],
        "pieces": pieces_json(d.pieces),
        "choice": choice_json(d.choice),
        "heap_standing": heap_json(d.heap),
        "aligned_lower_bound": report.aligned_lower_bound,
        "aligned_deficit": report.aligned_deficit,
        "aligned": aligned_json(report.aligned),
        **meeting_json(report),
        "cut": list(d.cut),
        "headline": headline_json(diagnosis_headline(d), output),
        "least": _least_json(d.lower),
    }


def _least_json(lower: Answer | None) -> Json | None:
    """An import's least below its toolchain's plan, where ``diagnose`` searched for it: its
    bounds and its placement (what ``-o`` writes)."""
    if lower is None:
        return None
    least = lower.least
    return {
        "top_lower_bound": None if least is None else least.lower_bound,
        "best_top": None if least is None else least.best_top,
        "optimal": None if least is None else least.optimal,
        "placement": placement_json(lower.placement),
    }


def _subset(ids: tuple[str, ...] | None) -> list[str] | None:
    """A subset of ids that cannot be placed together, or null (none, or none shown)."""
    return list(ids) if ids else None


def capacity_json(c: Capacity | None) -> Json | None:
    """The bound that proves a capacity deficit (``tilefit.bounds.capacity``), or null."""
    if c is None:
        return None
    return {"bound": c.bound, "over": c.over, "step": c.step, "leaving": c.leaving}


def diff_json(d: CaptureDiff) -> Json:
    """BASE and OTHER, every change, the live bytes of both, and what makes each window."""
    from tilefit.verdicts.diff import KINDS

    memory = d.memory
    return {
        "base": _diff_side(d.base),
        "other": _diff_side(d.other),
        "same_tile": d.same_tile,
        "matched": d.matched,
        "counts": {kind: d.count(kind) for kind in KINDS},
        "requests": [_request_change_json(c) for c in d.requests],
        "sequences": [
            {"id": s.id, "change": s.kind, "base": _ids(s.base), "other": _ids(s.other)}
            for s in d.sequences
        ],
        "conflicts_added": [[e.a, e.b] for e in d.conflicts_added],
        "conflicts_removed": [[e.a, e.b] for e in d.conflicts_removed],
        "memory": {
            "changed": memory.changed,
            "ranges_added": [_range_json(r) for r in memory.ranges_added],
            "ranges_removed": [_range_json(r) for r in memory.ranges_removed],
        },
        "profile": [
            {"start": r.start, "end": r.end, "base": r.base, "other": r.other, "change": r.change}
            for r in d.profile
        ],
        "windows": [
            {
                "window": window_json(w.window),
                "step": w.step,
                "base_live": w.base_live,
                "other_live": w.other_live,
                "increase": w.increase,
                "causes": [
                    {"id": c.id, "changes": list(c.kinds), "adds": c.adds} for c in w.causes
                ],
                "total": w.total,
                "share": None if w.share is None else round(w.share, 4),
            }
            for w in d.windows
        ],
        "not_revertible": [c.id for c in d.not_revertible],
    }


def _diff_side(c: Capture) -> Json:
    return {
        "name": c.name,
        "tile": c.tile,
        "requests": len(c.requests),
        "horizon": c.horizon,
        "size": c.memory.size,
        "available": c.available,
    }


def _request_change_json(c: RequestChange) -> Json:
    return {
        "id": c.id,
        "changes": list(c.kinds),
        "base": None if c.base is None else _request_json(c.base),
        "other": None if c.other is None else _request_json(c.other),
    }


def _request_json(r: Request) -> Json:
    return {
        "size": r.size,
        "alignment": r.alignment,
        "start": r.start,
        "end": r.end,
        "class": r.cls,
        "interleaved": r.interleaved,
        "label": r.label,
    }


def _range_json(r: Range) -> Json:
    classes = None if r.classes is None else list(r.classes)
    return {"start": r.start, "end": r.end, "name": r.name, "classes": classes}


def _ids(members: tuple[str, ...] | None) -> list[str] | None:
    return None if members is None else list(members)


def whatif_json(w: WhatIf) -> Json:
    """The edits as applied (as the edits file writes them), both diagnoses, the windows matched."""
    from tilefit.formats.edits import edit_json

    return {
        "capture": w.before.capture,
        "tile": w.before.tile,
        "edits": [
            {"edit": edit_json(a.edit), "place": a.edit.place, "requests": list(a.requests)}
            for a in w.edits
        ],
        "before": diagnosis_json(w.before),
        "after": diagnosis_json(w.after),
        "windows": [{"before": list(m.before), "after": list(m.after)} for m in w.windows],
    }


def bracket_json(b: Bracket | None) -> Json | None:
    if b is None:
        return None
    return {
        "lower": b.lower,
        "upper": b.upper,
        "top": b.top,
        "width": b.width,
        "lacks": b.lacks,
    }


def closest_json(c: Closest | None) -> Json | None:
    if c is None:
        return None
    return {
        "overflow": c.overflow,
        "storage": c.storage,
        "strategy": c.strategy,
        "placement": placement_json(c.placement),
    }


def synth_json(captures: int, output: str, seed: int) -> Json:
    return {"captures": captures, "output": output, "seed": seed}


def summary_json(store: Store, top: int | None = None) -> Json:
    """The batch summary, keys in a fixed order; ``top`` worst deficits (default: the
    text summary's count)."""
    from tilefit.batch.store import SUMMARY_TOP  # batch's SQLite only where a batch is read

    top = SUMMARY_TOP if top is None else top
    settings = store.settings()
    return {
        "captures": store.count(),
        "mode": settings.mode if settings else None,
        "search": settings.search if settings else None,
        "verdicts": dict(store.verdicts()),
        "errors": store.error_count(),
        "rescued": dict(store.rescued()),
        "worst_deficits": [row_json(r) for r in store.worst_deficits(top)],
        "slowest": [row_json(r) for r in store.slowest(top)],
        "error_rows": [row_json(r) for r in store.errors(top)],
        "tpumlir_models": _models_json(store.rows()),
    }


def _models_json(rows: list[Row]) -> list[Json]:
    """Per TPU-MLIR trace among the rows' sources, its failed attempts decided
    (``tilefit.batch.models``)."""
    from tilefit.batch.models import model_rows

    found, _ = model_rows(rows)
    return [
        {
            "model": r.model,
            "trace": r.trace,
            "attempts": r.attempts,
            "failed": r.failed,
            "fragmentation": r.fragmentation,
            "capacity": r.capacity,
            "undecided": r.undecided,
            "slices_cost": r.slices_cost,
            "given_up": r.given_up,
        }
        for r in found
    ]


def row_json(row: Row) -> Json:
    """One batch result row."""
    return {
        "name": row.name,
        "tile": row.tile,
        "source": row.source,
        "verdict": row.verdict,
        "strategy": row.strategy,
        "lower_bound": row.lower_bound,
        "available": row.available,
        "deficit": row.deficit,
        "support_deficit": row.support_deficit,
        "windows": row.windows,
        "must_leave": row.must_leave,
        "worst_window": None
        if row.worst_start is None
        else {"start": row.worst_start, "end": row.worst_end, "excess": row.worst_excess},
        "failed_id": row.failed_id,
        "seconds": seconds_json(row.seconds),
        "error": row.error,
    }
