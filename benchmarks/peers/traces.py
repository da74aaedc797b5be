"""A real trace as the benchmark sees it, and any solver's answer refereed.

A trace is a MiniMalloc CSV without a capacity (``id,lower,upper,size``, maybe IREE's
``offset``). It is read as a capture whose one range is the sum of all sizes, a memory
in which stacking every buffer fits, so that no solver is handed a hint of the peak. The
live bound is the most bytes live at one step. Every answer, tilefit's or a peer's, comes
back as offsets by buffer id and is judged by tilefit's referee on that capture; its peak
is the end of its highest byte.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tilefit.bounds.live import live_peak, request_spans
from tilefit.formats.minimalloc import capture_from_csv
from tilefit.model.capture import Capture
from tilefit.model.placement import Placement, placement_top
from tilefit.verdicts.check import check


@dataclass(frozen=True)
class Trace:
    """One trace: its name, file, the capture in a memory of the sum of its sizes, and
    its live bound."""

    name: str
    path: Path
    capture: Capture
    bound: int

    @property
    def capacity(self) -> int:
        return self.capture.memory.size


@dataclass(frozen=True)
class Answer:
    """One solver's answer on one trace: the peak its placement reaches (None when it gave
    none), the wall-clock seconds, whether it proved the peak least, whether the referee
    accepts the placement, and a note (the allocator's name, why it gave nothing, ...)."""

    solver: str
    peak: int | None
    seconds: float
    proven: bool = False
    valid: bool | None = None
    note: str = ""
    tried: tuple[tuple[str, int | None, float], ...] = ()
    """Where a peer is several solvers (omnimalloc): each one's name, peak and seconds."""


def read_trace(path: Path) -> Trace:
    text = path.read_text(encoding="utf-8")
    sizes = sum(int(row["size"]) for row in csv.DictReader(io.StringIO(text)))
    capture = capture_from_csv(text, path.name, capacity=max(sizes, 1))
    bound, _ = live_peak(request_spans(capture.requests))
    return Trace(path.stem, path, capture, bound)


def plain_csv(capture: Capture) -> str:
    """The trace as a peer reads it: ``id,lower,upper,size`` only (IREE's offsets left out,
    so that no peer starts from the compiler's plan)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "lower", "upper", "size"])
    for r in capture.requests:
        writer.writerow([r.id, r.start, r.end, r.size])
    return out.getvalue()


def offsets_from_csv(text: str) -> dict[str, int]:
    """Offsets by id from a peer's output CSV: a header naming ``id`` and ``offset`` among
    its columns (MiniMalloc's ``id,lower,upper,size,offset``, idealloc's ``id,offset``)."""
    return {row["id"].strip(): int(row["offset"]) for row in csv.DictReader(io.StringIO(text))}


def refereed(
    trace: Trace,
    solver: str,
    offsets: Mapping[str, int] | None,
    seconds: float,
    proven: bool = False,
    note: str = "",
) -> Answer:
    """The answer with its peak and the referee's word; no offsets: no placement."""
    if offsets is None:
        return Answer(solver, None, seconds, False, None, note)
    placement = Placement(trace.capture.name, dict(offsets))
    checked = check(trace.capture, placement)
    known = trace.capture.request_by_id
    peak = placement_top(trace.capture, {i: o for i, o in offsets.items() if i in known})
    if not checked.valid:
        first = checked.violations[0]
        note = f"{note}; referee: {first.kind} {', '.join(first.ids[:2])}".lstrip("; ")
    return Answer(solver, peak, seconds, proven and checked.valid, checked.valid, note)
