"""Units: what a strategy places one at a time.

A unit is a request outside every sequence, or a whole sequence placed as one
contiguous block. For ordering, a unit's size is the sum of its members'
sizes, its alignment the largest member alignment, its lifetime the hull of
its members' lifetimes and its class that of its first member.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from tilefit.model.capture import Capture, Conflict, Request, sequence_base


@dataclass(frozen=True, slots=True)
class Unit:
    """What the engine places at once: one request, or a sequence at fixed offsets."""

    id: str
    index: int  # position in capture order; ties always go to it
    members: tuple[Request, ...]
    offsets: tuple[int, ...]  # each member's offset from the unit's base
    size: int
    alignment: int
    start: int
    end: int
    cls: str
    base_residue: int  # valid bases: base % base_modulus == base_residue
    base_modulus: int

    @property
    def is_sequence(self) -> bool:
        return len(self.members) > 1 or self.members[0].id != self.id


def units(capture: Capture) -> tuple[Unit, ...]:
    """The capture's units in capture order (a sequence stands where its first member does)."""
    by_id = capture.request_by_id
    first_member = {s.members[0]: s for s in capture.sequences}
    out: list[Unit] = []
    for request in capture.requests:
        seq = first_member.get(request.id)
        if seq is not None:
            members = tuple(by_id[m] for m in seq.members)
            out.append(_unit(seq.id, len(out), members))
        elif request.id not in capture.sequence_of:
            out.append(_unit(request.id, len(out), (request,)))
    return tuple(out)


def request_unit(request: Request, index: int) -> Unit:
    """The unit of a request outside every sequence, ``index``-th in capture order."""
    return _unit(request.id, index, (request,))


def units_only(capture: Capture, ids: Iterable[str]) -> Capture:
    """The capture with only the units named (a request outside every sequence, or a whole
    sequence by its id) and the conflicts among them: an infeasible subset as a capture."""
    named = set(ids)
    keep = {m for i in named for m in capture.members(i)}
    return replace(
        capture,
        requests=tuple(r for r in capture.requests if r.id in keep),
        sequences=tuple(s for s in capture.sequences if s.id in named),
        conflicts=tuple(c for c in capture.conflicts if c.a in keep and c.b in keep),
    )


def _unit(ident: str, index: int, members: tuple[Request, ...]) -> Unit:
    if len(members) == 1:  # the common case, kept quick for captures of 100,000 requests
        r = members[0]
        return Unit(
            ident, index, members, (0,), r.size, r.alignment, r.start, r.end, r.cls, 0, r.alignment
        )
    offsets: list[int] = []
    total = 0
    for m in members:
        offsets.append(total)
        total += m.size
    base = sequence_base(tuple(m.size for m in members), tuple(m.alignment for m in members))
    if base is None:  # the loader rejects such captures; reaching here is a bug
        raise ValueError(f"sequence {ident!r} has no aligned base")
    return Unit(
        id=ident,
        index=index,
        members=members,
        offsets=tuple(offsets),
        size=total,
        alignment=max(m.alignment for m in members),
        start=min(m.start for m in members),
        end=max(m.end for m in members),
        cls=members[0].cls,
        base_residue=base[0],
        base_modulus=base[1],
    )


def split_sequences(capture: Capture) -> Capture:
    """The same capture with every sequence split into independently placeable members.

    Lifetimes are kept; a conflict edge naming a sequence is propagated to every
    member, so the bank-separation demands stay the same.
    """
    if not capture.sequences:
        return capture
    conflicts: list[Conflict] = []
    seen: set[tuple[str, str]] = set()
    for edge in capture.conflicts:
        for a in capture.members(edge.a):
            for b in capture.members(edge.b):
                key = (a, b) if a < b else (b, a)
                if key not in seen:
                    seen.add(key)
                    conflicts.append(Conflict(a, b))
    return replace(
        capture,
        name=f"{capture.name} (sequences split)",
        sequences=(),
        conflicts=tuple(conflicts),
    )
