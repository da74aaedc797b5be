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

from tilefit.model.capture import Capture, Conflict, Range, Request, Sequence, sequence_base
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
    for edit in edits:
        capture = _apply(capture, edit)
    return capture


def _apply(capture: Capture, edit: Edit) -> Capture:
    if isinstance(edit, AddCapacity):
        return _add_capacity(capture, edit)
    ids = matching(capture, edit.pattern, edit.place)
    if isinstance(edit, Drop):
        return _drop(capture, set(ids))
    if isinstance(edit, Resize):
        changed = {k: _resized(capture.request_by_id[k], edit) for k in ids}
    else:
        if not 0 <= edit.start < edit.end <= capture.horizon:
            raise InputError(
                edit.place,
                f"the lifetime [{edit.start}, {edit.end}) must satisfy "
                f"0 <= start < end <= horizon ({capture.horizon})",
            )
        changed = {
            k: replace(capture.request_by_id[k], start=edit.start, end=edit.end) for k in ids
        }
    requests = tuple(changed.get(r.id, r) for r in capture.requests)
    edited = replace(capture, requests=requests)
    _check_sequences(edited, edit.place)
    return edited


def matching(capture: Capture, pattern: str, place: str) -> list[str]:
    """The request ids a pattern names, in capture order; a sequence id names its members.

    A pattern that is exactly an id names that request or sequence alone: ids
    such as ``w3.attn_qkv[0]`` hold brackets, which fnmatch reads as a set.
    """
    if pattern in capture.request_by_id or pattern in capture.sequence_by_id:
        chosen = set(capture.members(pattern))
    else:
        chosen = {m for s in capture.sequences if fnmatchcase(s.id, pattern) for m in s.members}
        chosen.update(r.id for r in capture.requests if fnmatchcase(r.id, pattern))
    if not chosen:
        raise InputError(place, f"no request or sequence id matches {pattern!r}")
    return [r.id for r in capture.requests if r.id in chosen]


def _resized(r: Request, edit: Resize) -> Request:
    size = r.size + edit.size if edit.relative else edit.size
    if not 0 < size < INT_LIMIT:
        raise InputError(
            edit.place, f"{r.id} would be {size} B: a size must be > 0 and below {INT_LIMIT_TEXT}"
        )
    return replace(r, size=size)


def _drop(capture: Capture, gone: set[str]) -> Capture:
    sequences = tuple(
        Sequence(s.id, members, s.repeat)
        for s in capture.sequences
        if (members := tuple(m for m in s.members if m not in gone))
    )
    kept = {r.id for r in capture.requests if r.id not in gone} | {s.id for s in sequences}
    conflicts = tuple(Conflict(c.a, c.b) for c in capture.conflicts if {c.a, c.b} <= kept)
    observed = capture.observed_failed if capture.observed_failed in kept else None
    return replace(
        capture,
        requests=tuple(r for r in capture.requests if r.id not in gone),
        sequences=sequences,
        conflicts=conflicts,
        observed_failed=observed,
    )


def _add_capacity(capture: Capture, edit: AddCapacity) -> Capture:
    memory = capture.memory
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
        capture,
        memory=replace(
            memory,
            size=size,
            ranges=(*memory.ranges, Range(memory.size, size, WHAT_IF_RANGE)),
            elements=(*memory.elements, memory.size),
            interleaved_offset=None if offset is None or offset == memory.size else offset,
        ),
    )


def _check_sequences(capture: Capture, place: str) -> None:
    by_id = capture.request_by_id
    for s in capture.sequences:
        members = [by_id[m] for m in s.members]
        sizes = tuple(m.size for m in members)
        if sequence_base(sizes, tuple(m.alignment for m in members)) is None:
            raise InputError(
                place, f"no base offset aligns every member of sequence {s.id} any more"
            )
