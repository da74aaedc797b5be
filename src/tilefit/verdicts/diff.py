"""What changed between two captures of one tile, and which changes overload it.

The seed found the cause of 1-0's deficit by comparing the rejected recipe
with the capacity baseline: operation 18 had left early_casts, so the FP16
operand lived beside its FP8 result. A diff of the two captures says so
directly. Requests are matched by id; each one is added, removed, or
changed in size, alignment, lifetime or class (a label is free text and
does not count). Beside the changes: the live bytes of both captures at
every step, and, for each overloaded window of OTHER, the changed requests
live at its worst step ranked by the bytes they add there compared with
BASE. A request live there in both with the same size adds nothing, however
heavy: the QKV weights the production error names are not a cause.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tilefit.bounds.columns import live_by
from tilefit.bounds.deficit import bound
from tilefit.bounds.overload import Window
from tilefit.model.capture import Capture, Conflict, Memory, Range, Request
from tilefit.model.edits import Drop, Edit, Lifetime, Resize

# Every way a request can change, in the order they are reported.
KINDS = ("added", "removed", "resized", "realigned", "moved", "reclassed")
# What no edit can set back: an edit cannot add a request, nor set an alignment or a class.
NOT_REVERTIBLE = ("removed", "realigned", "reclassed")


@dataclass(frozen=True, slots=True)
class RequestChange:
    """One id whose request differs: its kinds of change, and the request on each side."""

    id: str
    kinds: tuple[str, ...]  # in KINDS order
    base: Request | None  # None: added in OTHER
    other: Request | None  # None: removed from OTHER


@dataclass(frozen=True, slots=True)
class SequenceChange:
    """A sequence added, removed, or whose members (or their order) changed."""

    id: str
    kind: str  # "added", "removed" or "changed"
    base: tuple[str, ...] | None  # its members in BASE; None when added
    other: tuple[str, ...] | None  # its members in OTHER; None when removed


@dataclass(frozen=True, slots=True)
class MemoryChange:
    """The two captures' memories; ``changed`` when they differ at all."""

    base: Memory
    other: Memory

    @property
    def changed(self) -> bool:
        return self.base != self.other

    @property
    def ranges_added(self) -> tuple[Range, ...]:
        return tuple(r for r in self.other.ranges if r not in self.base.ranges)

    @property
    def ranges_removed(self) -> tuple[Range, ...]:
        return tuple(r for r in self.base.ranges if r not in self.other.ranges)


@dataclass(frozen=True, slots=True)
class ProfileRun:
    """Steps [start, end) during which each capture has the same bytes live."""

    start: int
    end: int
    base: int  # bytes live in BASE (0 past its horizon)
    other: int  # bytes live in OTHER

    @property
    def change(self) -> int:
        return self.other - self.base


@dataclass(frozen=True, slots=True)
class Cause:
    """A changed request live at a window's worst step, and the bytes it adds there."""

    id: str
    kinds: tuple[str, ...]
    adds: int  # > 0: its size if BASE did not have it live there, else its growth


@dataclass(frozen=True)
class WindowCauses:
    """An overloaded window of OTHER and the changes that create it."""

    window: Window
    base_live: int  # BASE's live bytes at the window's worst step
    other_live: int  # OTHER's
    causes: tuple[Cause, ...]  # most bytes added first

    @property
    def step(self) -> int:
        return self.window.worst.start

    @property
    def increase(self) -> int:
        """OTHER's live bytes over BASE's at the worst step."""
        return self.other_live - self.base_live

    @property
    def total(self) -> int:
        return sum(c.adds for c in self.causes)

    @property
    def share(self) -> float | None:
        """The part of the increase the causes add (above 1 when other bytes left the step)."""
        return self.total / self.increase if self.increase > 0 else None


@dataclass(frozen=True)
class CaptureDiff:
    base: Capture
    other: Capture
    requests: tuple[RequestChange, ...]  # in OTHER's order, then the removed in BASE's
    sequences: tuple[SequenceChange, ...]
    conflicts_added: tuple[Conflict, ...]
    conflicts_removed: tuple[Conflict, ...]
    memory: MemoryChange
    profile: tuple[ProfileRun, ...]  # covers [0, the later horizon); adjacent runs differ
    windows: tuple[WindowCauses, ...]  # every overloaded window of OTHER, in time order

    def count(self, kind: str) -> int:
        return sum(1 for c in self.requests if kind in c.kinds)

    @property
    def matched(self) -> int:
        """Ids with a request in both captures."""
        return len(self.base.request_by_id.keys() & self.other.request_by_id.keys())

    @property
    def same_tile(self) -> bool:
        """False only when both captures name a tile and the tiles differ."""
        return None in (self.base.tile, self.other.tile) or self.base.tile == self.other.tile

    @property
    def empty(self) -> bool:
        """Nothing changed that a placement depends on."""
        return not (
            self.requests
            or self.sequences
            or self.conflicts_added
            or self.conflicts_removed
            or self.memory.changed
            or self.base.horizon != self.other.horizon
        )

    @property
    def not_revertible(self) -> tuple[RequestChange, ...]:
        """Changes that ``revert_edits`` cannot (wholly) undo."""
        return tuple(c for c in self.requests if _not_revertible(c, self.other.horizon))


def diff(base: Capture, other: Capture) -> CaptureDiff:
    """Everything that differs from BASE to OTHER, and what overloads OTHER."""
    requests = _request_changes(base, other)
    added, removed = _conflict_changes(base, other)
    profile = _profile(base, other)
    return CaptureDiff(
        base=base,
        other=other,
        requests=requests,
        sequences=_sequence_changes(base, other),
        conflicts_added=added,
        conflicts_removed=removed,
        memory=MemoryChange(base.memory, other.memory),
        profile=profile,
        windows=tuple(_causes(w, requests, profile) for w in bound(other).windows),
    )


def revert_edits(d: CaptureDiff) -> tuple[Edit, ...]:
    """Edits that turn OTHER's requests back into BASE's, for every id both have.

    Requests added in OTHER are dropped; sizes and lifetimes are set back.
    What no edit can do (add a removed request, set an alignment or a class,
    or a lifetime past OTHER's horizon) is left out: ``d.not_revertible``
    names it. Each edit's place is ``revert ID``.
    """
    drops: list[Edit] = []
    rest: list[Edit] = []
    for c in d.requests:
        # An exact id names that request alone (tilefit.model.edits.matching), even with
        # characters fnmatch would read as a pattern: ids need no escaping.
        pattern, place = c.id, f"revert {c.id}"
        if c.base is None:
            drops.append(Drop(pattern, place))
        elif c.other is not None:
            if "moved" in c.kinds and c.base.end <= d.other.horizon:
                rest.append(Lifetime(pattern, c.base.start, c.base.end, place))
            if "resized" in c.kinds:
                rest.append(Resize(pattern, c.base.size, False, place))
    return (*drops, *rest)


def _not_revertible(c: RequestChange, horizon: int) -> bool:
    if any(k in NOT_REVERTIBLE for k in c.kinds):
        return True
    return "moved" in c.kinds and c.base is not None and c.base.end > horizon


def _kinds(b: Request, o: Request) -> tuple[str, ...]:
    changed = {
        "resized": b.size != o.size,
        "realigned": b.alignment != o.alignment,
        "moved": (b.start, b.end) != (o.start, o.end),
        "reclassed": (b.cls, b.interleaved) != (o.cls, o.interleaved),
    }
    return tuple(k for k in KINDS if changed.get(k))


def _request_changes(base: Capture, other: Capture) -> tuple[RequestChange, ...]:
    before = base.request_by_id
    now = other.request_by_id
    found: list[RequestChange] = []
    for o in other.requests:
        b = before.get(o.id)
        kinds = ("added",) if b is None else _kinds(b, o)
        if kinds:
            found.append(RequestChange(o.id, kinds, b, o))
    found += [RequestChange(b.id, ("removed",), b, None) for b in base.requests if b.id not in now]
    return tuple(found)


def _sequence_changes(base: Capture, other: Capture) -> tuple[SequenceChange, ...]:
    before = base.sequence_by_id
    now = other.sequence_by_id
    found: list[SequenceChange] = []
    for s in other.sequences:
        b = before.get(s.id)
        if b is None:
            found.append(SequenceChange(s.id, "added", None, s.members))
        elif b.members != s.members:
            found.append(SequenceChange(s.id, "changed", b.members, s.members))
    found += [
        SequenceChange(s.id, "removed", s.members, None) for s in base.sequences if s.id not in now
    ]
    return tuple(found)


def _conflict_changes(
    base: Capture, other: Capture
) -> tuple[tuple[Conflict, ...], tuple[Conflict, ...]]:
    """(added, removed): an edge is an unordered pair; each side keeps its own order."""

    def pairs(c: Capture) -> set[frozenset[str]]:
        return {frozenset((e.a, e.b)) for e in c.conflicts}

    before, now = pairs(base), pairs(other)
    added = _unique(e for e in other.conflicts if frozenset((e.a, e.b)) not in before)
    removed = _unique(e for e in base.conflicts if frozenset((e.a, e.b)) not in now)
    return added, removed


def _unique(edges: Iterable[Conflict]) -> tuple[Conflict, ...]:
    seen: dict[frozenset[str], Conflict] = {}
    for e in edges:
        seen.setdefault(frozenset((e.a, e.b)), e)
    return tuple(seen.values())


def _profile(base: Capture, other: Capture) -> tuple[ProfileRun, ...]:
    base_steps, base_live = _totals(base)
    other_steps, other_live = _totals(other)
    steps = np.union1d(base_steps, other_steps)
    b = _live_on(base_steps, base_live, steps[:-1])
    o = _live_on(other_steps, other_live, steps[:-1])
    # A run starts where either side's bytes change.
    first = np.flatnonzero(np.r_[True, (b[1:] != b[:-1]) | (o[1:] != o[:-1])])
    ends = [*first[1:], len(steps) - 1]
    return tuple(
        ProfileRun(int(steps[k]), int(steps[e]), int(b[k]), int(o[k]))
        for k, e in zip(first, ends, strict=True)
    )


def _totals(capture: Capture) -> tuple[NDArray[Any], NDArray[Any]]:
    """``live_by``'s steps, and the bytes live from each until the next (0 from the horizon;
    ``live_by`` counts a wrapping lifetime at both ends of the circle)."""
    steps, live = live_by(capture, [0] * len(capture.requests), 1)
    return np.array(steps, dtype=np.int64), np.append(live[:, 0], 0)


def _live_on(steps: NDArray[Any], live: NDArray[Any], at: NDArray[Any]) -> NDArray[Any]:
    """Bytes live at each step of ``at``."""
    return live[np.searchsorted(steps, at, side="right") - 1]


def _causes(
    window: Window, changes: tuple[RequestChange, ...], profile: tuple[ProfileRun, ...]
) -> WindowCauses:
    """Only changed requests can be causes: a large capture with few changes stays cheap."""
    t = window.worst.start
    causes: list[Cause] = []
    for c in changes:
        o, b = c.other, c.base
        if o is None or not o.lives_at(t):
            continue
        adds = o.size if b is None or not b.lives_at(t) else o.size - b.size
        if adds > 0:
            causes.append(Cause(o.id, c.kinds, adds))
    causes.sort(key=lambda c: -c.adds)  # stable: OTHER's order on ties
    run = profile[bisect_right([r.start for r in profile], t) - 1]
    return WindowCauses(
        window=window, base_live=run.base, other_live=run.other, causes=tuple(causes)
    )
