"""Bounds: storage that must be live at once, whatever the placement.

Two lower bounds from the spec (section "Bounds"), both ignoring alignment
gaps and bank separation, so a deficit in either proves that no placement
exists:

- the live storage lower bound: the most bytes live at one step, against the
  available storage;
- the support-aware bound: at every step t and for every union U of allowed
  sets, the requests live at t whose allowed set lies inside U need at most
  |U| bytes. It catches storage open only to some classes (a scratch-only
  host aperture counts toward available storage but cannot hold weights).

And one beyond the spec, the aligned lower bound (``tilefit.bounds.aligned``):
the live requests also need the gaps that their alignments force between
them. It reports the most they span at one step (``aligned.span``, at least
the live bound) and the lowest memory top any placement can reach; its
deficit proves that no placement exists, as the other two do.

Both come from one sweep over the steps where something starts or ends
(``tilefit.bounds.columns``), which also gives every overloaded step and window
(``tilefit.bounds.overload``): the bound names the worst step, the windows
name all of them.

In a cyclic capture where some lifetime wraps, every step-by-step count runs
over the circle cut open at step 0 (``tilefit.model.arcs.cut_open``: exact
step by step), and one more bound joins them: the heaviest set of requests
whose lifetimes pairwise meet (``tilefit.bounds.meeting``), which on a circle
can exceed every step's load.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tilefit.bounds.aligned import AlignedBound, aligned_bound
from tilefit.bounds.columns import MAX_EXHAUSTIVE_SETS, UnionTable, live_by, union_table
from tilefit.bounds.meeting import Meeting, heaviest_meeting
from tilefit.bounds.overload import Window, overloaded_windows
from tilefit.bounds.pieces import PiecesShort, pieces_short
from tilefit.model.arcs import cut_open
from tilefit.model.capture import Capture, Interval

__all__ = [
    "MAX_EXHAUSTIVE_SETS",
    "AlignedBound",
    "BoundReport",
    "Contributor",
    "LiveProfile",
    "Meeting",
    "Segment",
    "SupportBound",
    "bound",
    "live_profile",
    "support_bound",
]


@dataclass(frozen=True, slots=True)
class Contributor:
    """A request live at the peak."""

    id: str
    size: int
    cls: str
    alignment: int
    label: str | None


@dataclass(frozen=True, slots=True)
class SupportBound:
    """The tightest (step, union of allowed sets) found."""

    deficit: int  # max(0, demand - capacity)
    step: int  # earliest step where this union's demand peaks
    demand: int  # bytes live at the step whose allowed set lies inside the union
    capacity: int  # |U|: bytes in the union
    union: tuple[Interval, ...]
    classes: tuple[str, ...]  # classes counted in the demand that are live at the step
    ranges: tuple[str, ...]  # the ranges the union draws on
    exhaustive: bool  # every union of allowed sets was tried


@dataclass(frozen=True)
class BoundReport:
    """Every lower bound of a capture against its available storage, with the evidence."""

    available: int
    lower_bound: int  # most bytes live at one step
    peak_step: int  # earliest step with that many
    contributors: tuple[Contributor, ...]  # live at the peak, largest first
    class_totals: tuple[tuple[str, int], ...]  # bytes live at the peak by class, largest first
    support: SupportBound
    windows: tuple[Window, ...]  # every overloaded window, in time order
    aligned: AlignedBound  # the live requests with the padding their alignments force
    pieces: PiecesShort | None = None  # where stretches too short for a request leave it short
    meeting: Meeting | None = None  # the heaviest pairwise-meeting set, where a lifetime wraps

    @property
    def must_leave(self) -> int:
        """Bytes that must leave the worst window before any placement can exist."""
        return max((w.must_leave for w in self.windows), default=0)

    @property
    def leaving(self) -> int:
        """Bytes that must leave before any placement can exist, as a headline says it:
        the worst window's, or, where no window is overloaded, the storage the alignment
        padding alone puts over (the aligned deficit); on a circle at least what the
        heaviest pairwise-meeting set is over, which no one window need show."""
        return max(self.must_leave or self.aligned_deficit, self.meeting_deficit)

    @property
    def meeting_deficit(self) -> int:
        """Storage the heaviest set of pairwise-meeting requests needs beyond the
        available (0 where nothing wraps: it is then a busiest step's load)."""
        return 0 if self.meeting is None else self.meeting.deficit(self.available)

    @property
    def deficit(self) -> int:
        return max(0, self.lower_bound - self.available)

    @property
    def support_deficit(self) -> int:
        return self.support.deficit

    @property
    def aligned_lower_bound(self) -> int:
        """The most the live requests span at one step, their forced padding included."""
        return self.aligned.span

    @property
    def aligned_deficit(self) -> int:
        """Storage the live requests need beyond the available, their forced padding
        included (never less than ``deficit``)."""
        return self.aligned.deficit

    @property
    def proves_deficit(self) -> bool:
        """Does a bound prove that no placement exists?"""
        return (
            self.deficit > 0
            or self.support_deficit > 0
            or self.aligned_deficit > 0
            or self.meeting_deficit > 0
        )


@dataclass(frozen=True, slots=True)
class Segment:
    """Steps [start, end) during which the same bytes are live."""

    start: int
    end: int
    live: tuple[int, ...]  # bytes live by class, in the order of LiveProfile.classes

    @property
    def total(self) -> int:
        return sum(self.live)


@dataclass(frozen=True)
class LiveProfile:
    """Bytes live at every step of [0, horizon), by class, as runs of equal steps."""

    horizon: int
    classes: tuple[str, ...]  # in order of first appearance in the capture
    segments: tuple[Segment, ...]  # cover [0, horizon), adjacent ones differ


def bound(capture: Capture) -> BoundReport:
    """Both bounds, the peak step and who is live there."""
    meeting = heaviest_meeting(capture) if capture.wraps else None
    capture = cut_open(capture)
    requests = capture.requests
    steps, live = live_by(capture, [0] * len(requests), 1)
    peak_row = int(np.argmax(live[:, 0]))  # the first maximum: the earliest step
    peak = steps[peak_row]
    at_peak = sorted(
        (k for k, r in enumerate(requests) if r.start <= peak < r.end),
        key=lambda k: (-requests[k].size, k),
    )
    contributors = tuple(
        Contributor(r.id, r.size, r.cls, r.alignment, r.label)
        for r in (requests[k] for k in at_peak)
    )
    totals: dict[str, int] = {}
    for c in contributors:
        totals[c.cls] = totals.get(c.cls, 0) + c.size
    table = union_table(capture)
    return BoundReport(
        available=capture.available,
        lower_bound=int(live[peak_row, 0]),
        peak_step=peak,
        contributors=contributors,
        class_totals=tuple(sorted(totals.items(), key=lambda item: (-item[1], item[0]))),
        support=_support(capture, table),
        windows=overloaded_windows(capture, table),
        aligned=aligned_bound(capture),
        pieces=pieces_short(capture, table),
        meeting=meeting,
    )


def live_profile(capture: Capture) -> LiveProfile:
    """Bytes live by class over [0, horizon), for plotting and reports."""
    capture = cut_open(capture)
    classes = tuple(dict.fromkeys(r.cls for r in capture.requests))
    column = {cls: k for k, cls in enumerate(classes)}
    steps, live = live_by(capture, [column[r.cls] for r in capture.requests], len(classes))
    segments: list[Segment] = []
    for k, row in enumerate(live):
        values = tuple(int(v) for v in row)
        if segments and segments[-1].live == values:
            segments[-1] = Segment(segments[-1].start, steps[k + 1], values)
        else:
            segments.append(Segment(steps[k], steps[k + 1], values))
    return LiveProfile(capture.horizon, classes, tuple(segments))


def support_bound(capture: Capture) -> SupportBound:
    """The worst (step, union of allowed sets): most demand over capacity."""
    capture = cut_open(capture)
    return _support(capture, union_table(capture))


def _support(capture: Capture, table: UnionTable) -> SupportBound:
    excess = [d - c for d, c in zip(table.peaks, table.capacity, strict=True)]
    # A union nothing lives in (the empty one, say) says nothing: the worst is the
    # tightest union with demand, the smallest on ties since it pinpoints the shortage.
    unions = range(len(table.unions))
    candidates = [u for u in unions if table.peaks[u] > 0] or list(unions)
    worst = min(candidates, key=lambda u: (-excess[u], table.capacity[u], u))
    demand = table.live @ table.inside[:, worst]
    row = int(np.argmax(demand))
    union = table.spans(worst)
    kinds = table.inside_union(worst)
    step = table.steps[row]
    # Kinds of the requests live at the step, not of their allowed set's column: two
    # classes may share an allowed set while only one of them is live there.
    live_kinds = {(r.cls, r.interleaved) for r in capture.requests if r.start <= step < r.end}
    return SupportBound(
        deficit=max(0, excess[worst]),
        step=step,
        demand=int(demand[row]),
        capacity=table.capacity[worst],
        union=union,
        classes=tuple(_kind(*key) for key in table.group if key in kinds and key in live_kinds),
        ranges=table.range_names(capture.memory, worst),
        exhaustive=table.exhaustive,
    )


def _kind(cls: str, interleaved: bool) -> str:
    return f"{cls} (interleaved)" if interleaved else cls
