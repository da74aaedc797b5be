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

from tilefit.model.capture import Capture, Memory, Range, Request, Sequence, sequence_base
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
    """Add ``size`` bytes at the top of memory: a range open to every class, its own element."""

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
        return replace(
            self.base,
            memory=self.memory,
            requests=tuple(self.requests.values()),
            sequences=tuple(self.sequences.values()),
            conflicts=conflicts,
            observed_failed=None if self.dropped and observed not in kept else observed,
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
            horizon = self.base.horizon
            if not 0 <= edit.start < edit.end <= horizon:
                raise InputError(
                    edit.place,
                    f"the lifetime [{edit.start}, {edit.end}) must satisfy "
                    f"0 <= start < end <= horizon ({horizon})",
                )
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
    size = memory.size + edit.size
    if edit.size <= 0 or size >= INT_LIMIT:
        raise InputError(
            edit.place,
            f"capacity to add must be > 0 and keep the memory below {INT_LIMIT_TEXT} bytes",
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
