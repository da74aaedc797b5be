"""Edits to a capture: what a user tries before changing the model.

"Reduce the staging footprint by 16 KiB", "keep the early cast", "give the
tile 4 KiB more": each is an edit, applied to a capture to get the capture
the compiler would then produce. Edits name requests by id or by a
shell-style pattern (``m*.cast.staging``); a sequence id stands for all its
members. Every edit carries the place it came from (``--resize`` or a JSON
path in an edits file), so a bad one is reported there, as bad input.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import Any

from tilefit.model.capture import (
    DEFAULT_PRODUCTION,
    Capture,
    Memory,
    Range,
    Request,
    Sequence,
    sequence_base,
)
from tilefit.model.errors import INT_LIMIT, INT_LIMIT_TEXT, InputError

WHAT_IF_RANGE = "what-if"  # the name of the range --capacity-add appends


@dataclass(frozen=True, slots=True)
class Drop:
    """Remove the requests (a sequence closes up around a dropped member)."""

    pattern: str
    place: str


@dataclass(frozen=True, slots=True)
class Resize:
    """Set each request's size to ``size`` bytes, or change it by ``size`` when ``relative``."""

    pattern: str
    size: int
    relative: bool
    place: str


@dataclass(frozen=True, slots=True)
class Lifetime:
    """Let each request live during steps [start, end)."""

    pattern: str
    start: int
    end: int
    place: str


@dataclass(frozen=True, slots=True)
class AddCapacity:
    """Add ``size`` bytes at the top of memory: a range open to every class, its own element.

    A negative ``size`` removes that many bytes of available storage, the highest first
    (``removed_top``)."""

    size: int
    place: str


Edit = Drop | Resize | Lifetime | AddCapacity


def apply_edits(capture: Capture, edits: Iterable[Edit]) -> Capture:
    """The capture after every edit, in order; InputError names the first bad edit."""
    return edit_capture(capture, edits)[0]


def edit_capture(
    capture: Capture, edits: Iterable[Edit]
) -> tuple[Capture, tuple[tuple[str, ...], ...]]:
    """The edited capture, and the request ids each edit touched (in capture order)."""
    draft = _Draft(capture)
    touched = tuple(draft.apply(edit) for edit in edits)
    return draft.capture(), touched


def matching(capture: Capture, pattern: str, place: str) -> list[str]:
    """The request ids a pattern names, in capture order; a sequence id names its members.

    A pattern that is exactly an id names that request or sequence alone: ids
    such as ``w3.attn_qkv[0]`` hold brackets, which fnmatch reads as a set.
    """
    return list(_Draft(capture).matching(pattern, place))


class _Draft:
    """A capture being edited: dictionaries by id, so each edit costs what it touches.

    Private and short-lived: ``edit_capture`` takes an immutable capture and
    returns one.
    """

    def __init__(self, capture: Capture) -> None:
        self.base = capture
        self.memory = capture.memory
        self.requests = {r.id: r for r in capture.requests}
        self.sequences = {s.id: s for s in capture.sequences}
        self.sequence_of = dict(capture.sequence_of)
        self.order = {r.id: k for k, r in enumerate(capture.requests)}
        self.dropped: set[str] = set()

    def capture(self) -> Capture:
        kept = set(self.requests) | set(self.sequences)
        conflicts = self.base.conflicts
        if self.dropped:
            conflicts = tuple(c for c in conflicts if c.a in kept and c.b in kept)
        observed = self.base.observed_failed
        requests = tuple(self.requests.values())
        changed = requests != self.base.requests
        return replace(
            self.base,
            memory=self.memory,
            requests=requests,
            sequences=tuple(self.sequences.values()),
            conflicts=conflicts,
            observed_failed=None if self.dropped and observed not in kept else observed,
            # what the production compiler did and was given holds for the requests as they were
            observed_offsets=None if changed else self.base.observed_offsets,
            **(_without_allocator(self.base) if changed else {}),
        )

    def matching(self, pattern: str, place: str) -> tuple[str, ...]:
        if pattern in self.requests:
            chosen = {pattern}
        elif pattern in self.sequences:
            chosen = set(self.sequences[pattern].members)
        else:
            chosen = {
                m for s in self.sequences.values() if fnmatchcase(s.id, pattern) for m in s.members
            }
            chosen.update(k for k in self.requests if fnmatchcase(k, pattern))
        if not chosen:
            raise InputError(place, f"no request or sequence id matches {pattern!r}")
        return tuple(sorted(chosen, key=self.order.__getitem__))

    def apply(self, edit: Edit) -> tuple[str, ...]:
        if isinstance(edit, AddCapacity):
            self.memory = _added(self.memory, edit)
            return ()
        ids = self.matching(edit.pattern, edit.place)
        if isinstance(edit, Drop):
            self._drop(ids)
            return ids
        if isinstance(edit, Resize):
            for k in ids:
                self.requests[k] = _resized(self.requests[k], edit)
        else:
            _check_lifetime(edit, self.base)
            for k in ids:
                self.requests[k] = replace(self.requests[k], start=edit.start, end=edit.end)
        self._check_sequences(
            {self.sequence_of[k] for k in ids if k in self.sequence_of}, edit.place
        )
        return ids

    def _drop(self, ids: tuple[str, ...]) -> None:
        gone = set(ids)
        for k in ids:
            del self.requests[k]
        for sid in {self.sequence_of.pop(k) for k in ids if k in self.sequence_of}:
            s = self.sequences[sid]
            members = tuple(m for m in s.members if m not in gone)
            if members:
                self.sequences[sid] = Sequence(s.id, members, s.repeat)
            else:
                del self.sequences[sid]
        self.dropped |= gone

    def _check_sequences(self, ids: set[str], place: str) -> None:
        for sid in sorted(ids):
            members = [self.requests[m] for m in self.sequences[sid].members]
            sizes = tuple(m.size for m in members)
            if sequence_base(sizes, tuple(m.alignment for m in members)) is None:
                raise InputError(
                    place, f"no base offset aligns every member of sequence {sid} any more"
                )


def _resized(r: Request, edit: Resize) -> Request:
    size = r.size + edit.size if edit.relative else edit.size
    if not 0 < size < INT_LIMIT:
        raise InputError(
            edit.place, f"{r.id} would be {size} B: a size must be > 0 and below {INT_LIMIT_TEXT}"
        )
    return replace(r, size=size)


def _added(memory: Memory, edit: AddCapacity) -> Memory:
    if edit.size < 0:
        return removed_top(memory, -edit.size, edit.place)
    size = memory.size + edit.size
    if edit.size == 0 or size >= INT_LIMIT:
        raise InputError(
            edit.place,
            "capacity to add must not be 0 (a negative amount removes bytes from the top) and "
            f"must keep the memory below {INT_LIMIT_TEXT} bytes",
        )
    # Interleaved addresses are those from the offset up; keep the new bytes out of it
    # unless memory already ends interleaved, so the edit adds storage and nothing else.
    offset = memory.interleaved_offset
    return replace(
        memory,
        size=size,
        ranges=(*memory.ranges, Range(memory.size, size, WHAT_IF_RANGE)),
        elements=(*memory.elements, memory.size),
        interleaved_offset=None if offset is None or offset == memory.size else offset,
    )


def removed_top(memory: Memory, size: int, place: str) -> Memory:
    """The memory without its ``size`` highest bytes of available storage.

    The ranges are clipped from the top down (a range wholly above the cut goes) and the
    memory ends where the highest range left ends: the memory elements starting there or
    above go, and an interleaved region that started there or above is empty. Removing
    every available byte (or more) is bad input: nothing would be left to ask about.
    """
    available = memory.available
    if size >= available:
        raise InputError(
            place,
            f"removes {size} B of the {available} B available: nothing would be left "
            f"(remove at most {available - 1} B)",
        )
    left = size
    cut = memory.size
    for r in sorted(memory.ranges, key=lambda r: r.start, reverse=True):
        if left < r.size:
            cut = r.end - left
            break
        left -= r.size
    ranges = tuple(replace(r, end=min(r.end, cut)) for r in memory.ranges if r.start < cut)
    return _ending_at(memory, ranges, cut)


def with_capacity(memory: Memory, capacity: int, place: str) -> Memory:
    """The memory asked about with ``--capacity``: its one range ``[s, e)`` becomes
    ``[s, s + capacity)`` (its name and classes kept) and the memory ends there.

    Less than the range removes its top bytes, as ``removed_top`` does; more extends it,
    the last memory element running to the new end, and the new addresses interleaved
    only when the memory already ended interleaved (as ``AddCapacity`` has them). A
    memory of several ranges is bad input: which range would grow or shrink is not said
    by one number (``AddCapacity`` adds or removes bytes at the top of any memory).
    """
    if not 0 < capacity < INT_LIMIT:
        raise InputError(place, f"must be > 0 and below {INT_LIMIT_TEXT}")
    if len(memory.ranges) != 1:
        raise InputError(
            place,
            f"asks about a memory of one range, and this capture's has {len(memory.ranges)}: "
            "tilefit whatif --capacity-add BYTES (or -BYTES) adds (or removes) memory at the "
            "top of any capture",
        )
    r = memory.ranges[0]
    end = r.start + capacity
    if end >= INT_LIMIT:
        raise InputError(place, f"the range would end at {end}, not below {INT_LIMIT_TEXT}")
    return _ending_at(memory, (replace(r, end=end),), end)


def _ending_at(memory: Memory, ranges: tuple[Range, ...], end: int) -> Memory:
    """The memory with these ranges, its addresses ending at ``end``; the elements that
    started at or above it go, and the interleaved region keeps its start only when it
    started below both the old end and the new one (else it is empty)."""
    offset = memory.interleaved_offset
    kept = offset is not None and offset < min(memory.size, end)
    return Memory(
        size=end,
        ranges=ranges,
        elements=tuple(e for e in memory.elements if e < end),
        interleaved_offset=offset if kept else None,
    )


def _check_lifetime(edit: Lifetime, capture: Capture) -> None:
    """A new lifetime as the capture's format allows it: on a line ``0 <= start < end <=
    horizon``; on a circle of ``period`` steps an arc that may wrap (``start > end``)."""
    start, end, period = edit.start, edit.end, capture.period
    if period is None and not 0 <= start < end <= capture.horizon:
        raise InputError(
            edit.place,
            f"the lifetime [{start}, {end}) must satisfy "
            f"0 <= start < end <= horizon ({capture.horizon})",
        )
    if period is not None and not (0 <= start < period and 0 < end <= period and start != end):
        raise InputError(
            edit.place,
            f"the lifetime [{start}, {end}) must satisfy 0 <= start < period ({period}), "
            f"0 < end <= period, start != end (start > end wraps)",
        )


def _without_allocator(capture: Capture) -> dict[str, Any]:
    """A capture whose requests were edited keeps no allocator's inputs (they were given
    for the requests as they were), and replays the default production instead of it."""
    if capture.allocator is None:
        return {}
    kept = tuple(p for p in capture.production if p != capture.allocator.name)
    return {"allocator": None, "production": kept or DEFAULT_PRODUCTION}
