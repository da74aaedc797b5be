"""Stacking: every unit above the one before it, as if all lived at once.

The answer of last resort (issue 48: never nothing): where the deadline ends the greedy
passes before one of them places the capture, a placement that treats every lifetime as
meeting every other still exists whenever the memory holds the units one above the other,
and it is found in one walk up the memory, time linear in the units (a few conflict
partners each), with no sweep over steps. It is never good: its top is about the sum of
the sizes. It is valid: no two units share a byte whatever their lifetimes, each member
lies inside its allowed set at an aligned offset, and a unit moves up past any memory
element that a placed conflict partner (or a conflicting member of its own sequence)
touches. The referee checks it at the ladder's exit like every placement.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from tilefit.engine.attempt import Prepared
from tilefit.engine.uniform import UniformArrays
from tilefit.model.capture import Capture, Interval, align_up, element_index
from tilefit.model.placement import Placement
from tilefit.model.units import Unit

NAME = "stacking"
"""The strategy name a stacked placement carries."""

SECONDS_PER_REQUEST = 8e-6
"""What stacking takes per request with a core to itself, with room (the general walk:
S_1's 28,526 requests in 0.10 s, 200,000 made-up ones in 0.74 s on the 2-core development
machine): the greedy passes end ``seconds(prepared)`` times the machine's stretch before
the deadline until one of them places the capture."""

UNIFORM_SECONDS_PER_REQUEST = 1e-6
"""The same for a uniform capture's shortcut (200,000 made-up requests: 0.09 s)."""

BUMPS_PER_UNIT = 64
"""How often one unit may be moved up past an obstacle before stacking gives up on it:
each move passes a range boundary or a memory element, so a unit that needs more is one
that a placement above it would not hold either in any memory met so far."""


@dataclass(frozen=True)
class _Member:
    """One request of a unit, at its offset from the unit's base."""

    id: str
    offset: int  # from the unit's base
    size: int
    allowed: tuple[Interval, ...]  # joined, ascending
    starts: tuple[int, ...]  # the allowed intervals' starts, for bisection


def seconds(prepared: Prepared) -> float:
    """About what ``stack`` takes on ``prepared`` with a core to itself, with room."""
    each = SECONDS_PER_REQUEST if prepared.uniform is None else UNIFORM_SECONDS_PER_REQUEST
    return each * len(prepared.capture.requests)


def stack(prepared: Prepared) -> Placement | None:
    """Every unit of ``prepared`` placed above the previous one in capture order, at the
    lowest base that keeps its members aligned, inside their allowed sets and away from
    the elements of their placed conflict partners; None where some unit finds no such
    base below the memory's size."""
    if prepared.uniform is not None:
        return _stack_uniform(prepared.capture, prepared.uniform)
    capture = prepared.capture
    memory = capture.memory
    allowed_of: dict[tuple[str, bool], tuple[tuple[Interval, ...], tuple[int, ...]]] = {}
    offsets: dict[str, int] = {}
    spans: dict[str, tuple[int, int]] = {}  # placed request id -> (first, last) element
    cursor = 0
    for unit in prepared.units:
        members = []
        for member, offset in zip(unit.members, unit.offsets, strict=True):
            key = (member.cls, member.interleaved)
            if key not in allowed_of:
                allowed = memory.allowed(*key)
                allowed_of[key] = allowed, tuple(start for start, _ in allowed)
            members.append(_Member(member.id, offset, member.size, *allowed_of[key]))
        base = _lowest_base(prepared, unit, members, cursor, spans)
        if base is None:
            return None
        for m in members:
            lo = base + m.offset
            offsets[m.id] = lo
            if prepared.constraints.partners.get(m.id):
                spans[m.id] = _elements(prepared, lo, lo + m.size)
        cursor = base + unit.size
    # Offsets in capture order, as every placement lists them.
    return Placement(capture.name, {r.id: offsets[r.id] for r in capture.requests})


def _stack_uniform(capture: Capture, arrays: UniformArrays) -> Placement | None:
    """``stack`` on a uniform capture (every unit one request, no conflict, one allowed
    interval for all): each request in capture order at the lowest aligned offset at or
    above the end of the one before, with nothing else in its way. The general walk gives
    the same offsets; this one reads the capture's arrays, not its units, and skips the
    obstacles: an eighth of the time."""
    offsets: dict[str, int] = {}
    cursor = arrays.low
    sizes, alignments = arrays.sizes.tolist(), arrays.alignments.tolist()
    for request, size, alignment in zip(capture.requests, sizes, alignments, strict=True):
        offset = align_up(cursor, 0, alignment)
        cursor = offset + size
        if cursor > arrays.high:
            return None
        offsets[request.id] = offset
    return Placement(capture.name, offsets)


def _lowest_base(
    prepared: Prepared,
    unit: Unit,
    members: list[_Member],
    cursor: int,
    spans: dict[str, tuple[int, int]],
) -> int | None:
    """The lowest valid base at or above ``cursor`` (None: none below the memory's size)."""
    size = prepared.constraints.memory_size
    base = align_up(cursor, unit.base_residue, unit.base_modulus)
    for _ in range(BUMPS_PER_UNIT):
        if base + unit.size > size:
            return None
        higher = _obstacle(prepared, unit, members, base, spans)
        if higher is None:
            return base
        if higher <= base:  # an obstacle that no higher base passes
            return None
        base = align_up(higher, unit.base_residue, unit.base_modulus)
    return None


def _obstacle(
    prepared: Prepared,
    unit: Unit,
    members: list[_Member],
    base: int,
    spans: dict[str, tuple[int, int]],
) -> int | None:
    """None where ``base`` is valid for the unit; else a higher base that gets past the
    first obstacle met (0 where no base does)."""
    constraints = prepared.constraints
    own: list[tuple[int, int]] = []
    for m in members:
        lo, hi = base + m.offset, base + m.offset + m.size
        k = bisect_right(m.starts, lo) - 1
        if k < 0 or m.allowed[k][1] < hi:  # outside, or running past its interval's end
            nxt = k + 1
            if nxt >= len(m.allowed):
                return 0
            return m.allowed[nxt][0] - m.offset
        first, last = _elements(prepared, lo, hi)
        for partner in constraints.partners.get(m.id, ()):
            placed = spans.get(partner)
            if placed is not None and placed[0] <= last and first <= placed[1]:
                return _element_start(prepared, placed[1] + 1) - m.offset
        own.append((first, last))
    for k, j in constraints.inner.get(unit.id, ()):
        if k != j and own[k][0] <= own[j][1] and own[j][0] <= own[k][1]:
            # the later member must start past the earlier one's last element
            early, late = (k, j) if members[k].offset < members[j].offset else (j, k)
            return _element_start(prepared, own[early][1] + 1) - members[late].offset
        if k == j:  # a member in conflict with itself can never be placed
            return 0
    return None


def _elements(prepared: Prepared, lo: int, hi: int) -> tuple[int, int]:
    starts = prepared.constraints.elements
    return element_index(starts, lo), element_index(starts, hi - 1)


def _element_start(prepared: Prepared, index: int) -> int:
    elements = prepared.constraints.elements
    return elements[index] if index < len(elements) else prepared.constraints.memory_size
