"""The --json of the toolchain commands: ``tilefit import`` and ``tilefit export``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tilefit.output.jsonout import heap_json, violation_json

if TYPE_CHECKING:
    from tilefit.toolchains.base import Exported, Imported, Part
    from tilefit.verdicts.imported import ImportReview

Json = dict[str, Any]


def import_json(item: Imported, review: ImportReview) -> Json:
    """One imported plan: where it came from, its size, its placement refereed."""
    capture = item.capture
    origin = capture.origin
    return {
        "name": capture.name,
        "source": None if origin is None else origin.source,
        "file": item.source,
        "values": item.values,
        "requests": len(capture.requests),
        "steps": capture.horizon,
        "heap": None if origin is None else origin.heap,
        "memory": capture.memory.size,
        "lower_bound": review.lower_bound,
        "aligned_top": review.aligned_top,
        "placement_valid": review.check.valid,
        "violations": [violation_json(v) for v in review.check.violations],
        "heap_standing": heap_json(review.standing),
        "notes": list(item.notes),
        "capture_file": None,
        "placement_file": None,
    }


def export_json(toolchain: str, e: Exported, written: str | None) -> Json:
    """A placement written back: the plan's top before and after, and the runtime's word."""
    saved = e.before - e.after
    runtime = e.runtime
    whole = None if runtime is None else runtime.whole or runtime.plan  # IREE's: the slabs
    return {
        "toolchain": toolchain,
        "requests": e.requests,
        "head_before": e.before,
        "head_after": e.after,
        "saved": saved,
        "saved_percent": round(100.0 * saved / e.before, 2) if e.before else 0.0,
        "runtime": None
        if runtime is None or whole is None
        else {
            "head_before": runtime.plan.before,
            "head_after": runtime.plan.after,
            "arena_before": whole.before,
            "arena_after": whole.after,
            "invocations": runtime.invocations,
            "outputs_identical": runtime.identical,
            "outputs_vary": runtime.varies,
        },
        "output": written,
        "packs": [_part_json(p) for p in e.parts],
    }


def _part_json(p: Part) -> Json:
    found: Json = {"name": p.name, "requests": p.requests, "before": p.before, "after": p.after}
    if p.banks is not None:  # TPU-MLIR's groups: the bank pairs each plan breaks
        found["banks"] = {
            "pairs": p.banks.pairs,
            "broken_before": p.banks.before,
            "broken_after": p.banks.after,
        }
    return found
