"""The independent checker: referee a placement against the capture's rules.

It is the referee, so it shares nothing with the placement engine: allowed
sets, element membership and overlaps are recomputed here straight from the
spec text (section "Placement", rules 1-6). A bug in the engine's helpers
cannot hide a bug in its placements this way.

Every violation is listed, grouped by kind in rule order and, within a kind,
in capture order. Overlapping pairs are counted exactly by a sweep over time,
but only the first ``max_overlaps`` of them met by the sweep are listed, since
a broken placement can have millions.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np

from tilefit.model.capture import Capture, Memory, Request
from tilefit.model.collector import collector_paused
from tilefit.model.errors import INT_LIMIT
from tilefit.model.placement import Placement
from tilefit.model.words import lifetime_text
from tilefit.verdicts.allowed import Span, allowed_set, intersect, union
from tilefit.verdicts.clearance import clear_in_columns
from tilefit.verdicts.disjoint import none_meet

if TYPE_CHECKING:  # numpy.typing is for the type checker only
    from numpy.typing import NDArray

KINDS = ("missing", "unknown", "alignment", "range", "overlap", "sequence", "conflict")
MAX_OVERLAPS_LISTED = 1000


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule: its kind (see ``KINDS``), the ids involved, and why."""

    kind: str
    ids: tuple[str, ...]
    detail: str


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The referee's finding: every rule a placement breaks (none: it is valid)."""

    violations: tuple[Violation, ...]
    overlaps_not_listed: int = 0  # overlapping pairs beyond the listing cap

    @property
    def valid(self) -> bool:
        return not self.violations and not self.overlaps_not_listed

    def count(self, kind: str) -> int:
        """How many violations of this kind, including overlaps left out of the list."""
        listed = sum(1 for v in self.violations if v.kind == kind)
        return listed + (self.overlaps_not_listed if kind == "overlap" else 0)


@dataclass(frozen=True, slots=True)
class _Placed:
    """A request placed, with its position in capture order."""

    index: int  # capture order
    request: Request
    offset: int

    @property
    def end(self) -> int:
        return self.offset + self.request.size


def check(
    capture: Capture, placement: Placement, max_overlaps: int = MAX_OVERLAPS_LISTED
) -> CheckResult:
    """Every way ``placement`` breaks the rules of ``capture``; valid when there is none.

    A request without an offset is reported as ``missing`` and skipped by every
    other rule.
    """
    with collector_paused():  # a million placed requests, no cycles among them
        return _check(capture, placement, max_overlaps)


def _check(capture: Capture, placement: Placement, max_overlaps: int) -> CheckResult:
    offsets = placement.offsets
    if clear_in_columns(capture, offsets):
        return CheckResult(())
    placed = [
        _Placed(k, r, offsets[r.id]) for k, r in enumerate(capture.requests) if r.id in offsets
    ]
    # Only sequences and conflicts look placed requests up by id: none, no table.
    by_id = {p.request.id: p for p in placed} if capture.sequences or capture.conflicts else {}
    period = capture.horizon if capture.wraps else None
    overlaps: list[Violation] = []
    not_listed = 0
    if not _cleared(placed, period):  # the sweep counts and lists what the quick look saw
        if period is None:
            overlaps, not_listed = _overlaps(placed, max_overlaps)
        else:
            overlaps, not_listed = _overlaps_on_circle(placed, max_overlaps, period)
    found = [
        # Every request has an offset: none is missing, no second walk.
        *(() if len(placed) == len(capture.requests) else _missing(capture, offsets)),
        *_unknown(capture, offsets),
        *_misaligned(placed),
        *_out_of_range(capture.memory, placed),
        *overlaps,
        *_broken_sequences(capture, by_id),
        *_conflicts(capture, by_id),
    ]
    return CheckResult(tuple(found), not_listed)


def referee(capture: Capture, placement: Placement, source: str) -> Placement:
    """``placement``, which the checker must find valid: one tilefit made, so a violation
    is tilefit's bug (RuntimeError naming ``source``), never the user's input."""
    checked = check(capture, placement)
    if not checked.valid:
        first = checked.violations[0]
        raise RuntimeError(
            f"internal error: the placement from {source} fails the checker "
            f"({first.kind}: {', '.join(first.ids)}); please report it with the capture"
        )
    return placement


def _missing(capture: Capture, offsets: Mapping[str, int]) -> Iterator[Violation]:
    for r in capture.requests:
        if r.id not in offsets:
            detail = (
                f"{r.id} ({r.size} B, class {r.cls}, {lifetime_text(r.start, r.end)}) has no offset"
            )
            yield Violation("missing", (r.id,), detail)


def _unknown(capture: Capture, offsets: Mapping[str, int]) -> Iterator[Violation]:
    requests = {r.id for r in capture.requests}
    sequences = {s.id for s in capture.sequences}
    for ident in sorted(set(offsets) - requests):
        if ident in sequences:
            why = "is a sequence: its members take the offsets"
        else:
            why = f"is not a request of capture {capture.name}"
        yield Violation(
            "unknown", (ident,), f"offset {offsets[ident]} given for {ident}, which {why}"
        )


def _misaligned(placed: list[_Placed]) -> Iterator[Violation]:
    for p in placed:
        align = p.request.alignment
        if p.offset % align:
            detail = f"{p.request.id} at {p.offset} is not a multiple of its alignment {align}"
            yield Violation("alignment", (p.request.id,), detail)


def _out_of_range(memory: Memory, placed: list[_Placed]) -> Iterator[Violation]:
    allowed: dict[tuple[str, bool], tuple[list[int], list[Span]]] = {}
    for p in placed:
        key = (p.request.cls, p.request.interleaved)
        if key not in allowed:
            spans = allowed_set(memory, *key)
            allowed[key] = ([s for s, _ in spans], spans)
        starts, spans = allowed[key]
        # The one span that could hold the request is the last starting at or below it.
        k = bisect_right(starts, p.offset) - 1
        if k >= 0 and p.end <= spans[k][1]:
            continue
        what = f"class {p.request.cls}" + (", interleaved" if p.request.interleaved else "")
        detail = (
            f"{p.request.id} at {_fmt(p.offset, p.end)} is not inside its allowed set "
            f"{_fmt_spans(spans)} ({what})"
        )
        yield Violation("range", (p.request.id,), detail)


def _cleared(placed: list[_Placed], period: int | None) -> bool:
    """Whether ``none_meet`` finds no two placed requests sharing addresses at a step:
    each lifetime as its steps (one or two runs on a ``period``'s circle). Offsets past
    2^62 (a broken placement) are left to the sweep."""
    if period is None:
        starts = [p.request.start for p in placed]
        ends = [p.request.end for p in placed]
        lows = [p.offset for p in placed]
        sizes = [p.request.size for p in placed]
    else:
        runs = [
            (lo, hi, p.offset, p.request.size)
            for p in placed
            for lo, hi in _steps(*_life(p), period)
        ]
        starts, ends, lows, sizes = (list(c) for c in zip(*runs, strict=True)) if runs else [[]] * 4
    try:
        low = np.array(lows, dtype=np.int64)
    except OverflowError:
        return False
    if len(low) and int(np.abs(low).max()) >= INT_LIMIT:
        return False
    start, end = np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64)
    return none_meet(start, end, low, low + np.array(sizes, dtype=np.int64))


def _overlaps(placed: list[_Placed], cap: int) -> tuple[list[Violation], int]:
    """Pairs live at a common step with intersecting addresses: listed up to ``cap``, all counted.

    Sweep requests by start step, dropping those that have ended. Among the live
    ones, those intersecting [lo, hi) number #(live lo' < hi) - #(live hi' <= lo),
    two bisections in sorted lists of live low and high addresses. Pairs are
    then enumerated only for the requests that have some, until the cap.
    """
    # Plain lists of ints, sorted by index: a million placed requests are swept in
    # seconds, where objects and key functions took tens of them.
    starts = [p.request.start for p in placed]
    stops = [p.request.end for p in placed]
    lows = [p.offset for p in placed]
    highs = [p.offset + p.request.size for p in placed]
    order = sorted(range(len(placed)), key=starts.__getitem__)  # stable: ties by index
    by_end = sorted(range(len(placed)), key=stops.__getitem__)
    live_lo: list[int] = []
    live_hi: list[int] = []
    hits: list[int] = []  # positions in ``order`` of requests overlapping an earlier one
    total = gone = 0
    for pos, k in enumerate(order):
        start, low, high = starts[k], lows[k], highs[k]
        while gone < len(by_end) and stops[by_end[gone]] <= start:
            q = by_end[gone]
            del live_lo[bisect_left(live_lo, lows[q])]
            del live_hi[bisect_left(live_hi, highs[q])]
            gone += 1
        count = bisect_left(live_lo, high) - bisect_right(live_hi, low)
        if count:
            hits.append(pos)
            total += count
        insort(live_lo, low)
        insort(live_hi, high)
    listed = _list_overlaps([placed[k] for k in order] if hits else [], hits, cap)
    return listed, total - len(listed)


def _list_overlaps(order: list[_Placed], hits: list[int], cap: int) -> list[Violation]:
    if not hits or cap <= 0:
        return []
    # Python ints may exceed int64 in a broken placement; object arrays stay exact.
    wide = max(max(abs(p.offset), abs(p.end)) for p in order) >= 2**62
    dtype: type = object if wide else np.int64
    ends: NDArray[Any] = np.array([p.request.end for p in order], dtype=dtype)
    lows: NDArray[Any] = np.array([p.offset for p in order], dtype=dtype)
    highs: NDArray[Any] = np.array([p.end for p in order], dtype=dtype)
    pairs: list[tuple[_Placed, _Placed]] = []
    for pos in hits:
        p = order[pos]
        # Earlier in the sweep (so started no later), still live, addresses intersect.
        mask = (ends[:pos] > p.request.start) & (lows[:pos] < p.end) & (highs[:pos] > p.offset)
        partners = sorted((order[int(k)] for k in np.flatnonzero(mask)), key=lambda q: q.index)
        pairs.extend((q, p) for q in partners)
        if len(pairs) >= cap:
            break
    listed = sorted((sorted((a, b), key=lambda p: p.index) for a, b in pairs[:cap]), key=_indices)
    return [_overlap(a, b) for a, b in listed]


def _indices(pair: list[_Placed]) -> tuple[int, int]:
    return pair[0].index, pair[1].index


def _overlap(a: _Placed, b: _Placed) -> Violation:
    ra, rb = a.request, b.request
    detail = (
        f"{ra.id} at {_fmt(a.offset, a.end)} {lifetime_text(ra.start, ra.end)} and "
        f"{rb.id} at {_fmt(b.offset, b.end)} {lifetime_text(rb.start, rb.end)} share addresses "
        f"{_fmt(max(a.offset, b.offset), min(a.end, b.end))} during steps "
        f"{_fmt(max(ra.start, rb.start), min(ra.end, rb.end))}"
    )
    return Violation("overlap", (ra.id, rb.id), detail)


def _steps(start: int, end: int, period: int) -> list[Span]:
    """A lifetime's steps on a circle of ``period``: ``start > end`` wraps past the last."""
    return [(start, end)] if start < end else [(0, end), (start, period)]


def _overlaps_on_circle(
    placed: list[_Placed], cap: int, period: int
) -> tuple[list[Violation], int]:
    """As ``_overlaps``, where some lifetime wraps around the circle: each lifetime taken as
    its one or two linear runs of steps, swept by start; two requests whose runs meet
    more than once (both wrap, say) are one pair. Pairs are enumerated, which a cyclic
    capture (a loop's tensors) affords."""
    runs = sorted((lo, hi, n) for n, p in enumerate(placed) for lo, hi in _steps(*_life(p), period))
    live: list[tuple[int, int]] = []  # (run end, placed position)
    pairs: set[tuple[int, int]] = set()
    for lo, hi, n in runs:
        live = [(end, m) for end, m in live if end > lo]
        p = placed[n]
        for _, m in live:
            q = placed[m]
            if m != n and q.offset < p.end and p.offset < q.end:
                pairs.add((min(m, n), max(m, n)))
        live.append((hi, n))
    ordered = sorted(pairs, key=lambda mn: (placed[mn[0]].index, placed[mn[1]].index))
    listed = [_overlap_on_circle(placed[m], placed[n], period) for m, n in ordered[:cap]]
    return listed, len(pairs) - len(listed)


def _life(p: _Placed) -> Span:
    return p.request.start, p.request.end


def _overlap_on_circle(a: _Placed, b: _Placed, period: int) -> Violation:
    ra, rb = a.request, b.request
    shared = [
        _fmt(max(x0, y0), min(x1, y1))
        for x0, x1 in _steps(ra.start, ra.end, period)
        for y0, y1 in _steps(rb.start, rb.end, period)
        if max(x0, y0) < min(x1, y1)
    ]
    detail = (
        f"{ra.id} at {_fmt(a.offset, a.end)} {lifetime_text(ra.start, ra.end)} and "
        f"{rb.id} at {_fmt(b.offset, b.end)} {lifetime_text(rb.start, rb.end)} share addresses "
        f"{_fmt(max(a.offset, b.offset), min(a.end, b.end))} during steps "
        + " and ".join(shared)
        + f" (period {period})"
    )
    return Violation("overlap", (ra.id, rb.id), detail)


def _broken_sequences(capture: Capture, by_id: Mapping[str, _Placed]) -> Iterator[Violation]:
    for seq in capture.sequences:
        for before, after in pairwise(seq.members):
            a, b = by_id.get(before), by_id.get(after)
            if a is None or b is None or b.offset == a.end:
                continue
            detail = (
                f"in sequence {seq.id}, {after} is at {b.offset} but must start at {a.end}, "
                f"right after {before} at {_fmt(a.offset, a.end)}"
            )
            yield Violation("sequence", (seq.id, before, after), detail)


def _conflicts(capture: Capture, by_id: Mapping[str, _Placed]) -> Iterator[Violation]:
    memory = capture.memory
    members = {s.id: s.members for s in capture.sequences}
    sides: dict[str, tuple[list[tuple[Span, _Placed]], list[Span]]] = {}

    def side(ident: str) -> tuple[list[tuple[Span, _Placed]], list[Span]]:
        """Each placed member of ``ident`` with the element indices it touches, and their union."""
        if ident not in sides:
            touched = []
            for m in members.get(ident, (ident,)):
                p = by_id.get(m)
                span = None if p is None else _elements_touched(memory, p.offset, p.end)
                if p is not None and span is not None:
                    touched.append((span, p))
            sides[ident] = touched, union([s for s, _ in touched])
        return sides[ident]

    for edge in capture.conflicts:
        (a, a_union), (b, b_union) = side(edge.a), side(edge.b)
        shared = intersect(a_union, b_union)
        if not shared:
            continue
        first = shared[0][0]
        pa = next(p for s, p in a if s[0] <= first < s[1])
        pb = next(p for s, p in b if s[0] <= first < s[1])
        lo = memory.elements[first]
        hi = memory.elements[first + 1] if first + 1 < len(memory.elements) else memory.size
        detail = (
            f"{edge.a} and {edge.b} share memory element(s) {_fmt_elements(shared)}: "
            f"{pa.request.id} at {_fmt(pa.offset, pa.end)} and "
            f"{pb.request.id} at {_fmt(pb.offset, pb.end)} both touch element {first} "
            f"{_fmt(lo, hi)}"
        )
        yield Violation("conflict", (edge.a, edge.b), detail)


def _elements_touched(memory: Memory, lo: int, hi: int) -> Span | None:
    """Indices [first, last + 1) of the elements that bytes [lo, hi) touch inside memory."""
    lo, hi = max(lo, 0), min(hi, memory.size)
    if lo >= hi:
        return None
    first = bisect_right(memory.elements, lo) - 1
    last = bisect_right(memory.elements, hi - 1) - 1
    return first, last + 1


def _fmt(start: int, end: int) -> str:
    return f"[{start}, {end})"


def _fmt_spans(spans: list[Span], limit: int = 4) -> str:
    if not spans:
        return "(empty)"
    shown = " ".join(_fmt(s, e) for s, e in spans[:limit])
    more = len(spans) - limit
    return shown + (f" and {more} more" if more > 0 else "")


def _fmt_elements(spans: list[Span]) -> str:
    return ", ".join(str(s) if e == s + 1 else f"{s}-{e - 1}" for s, e in spans)
