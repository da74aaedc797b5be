"""The free space for one unit, given the units placed so far.

A base offset is **valid** for a unit when every member k, at
``base + offsets[k]``, is aligned, lies inside its own allowed set, is clear
of every placed request alive during member k's own lifetime, and touches no
memory element that one of member k's placed conflict partners touches; and
two members that conflict with each other touch no common element.

A unit's **holes** are the maximal address intervals inside the allowed set
of every member, clear of every placed request alive at some step of the
unit's lifetime (the hull of its members' lifetimes), after removing the
memory elements touched by the placed conflict partners of any member. For a
request this is exactly the spec's hole. For a sequence it is the hole of its
block hull: a conservative view, since a member need not avoid what is placed
outside its own lifetime.
"""

from __future__ import annotations

from collections.abc import Mapping

from tilefit.capture import Interval, Request
from tilefit.constraints import Constraints
from tilefit.intervals import gaps, merge, scan, skip
from tilefit.occupancy import Occupancy
from tilefit.units import Unit


class UnitSpace:
    """Implements ``tilefit.fits.Space`` for one unit."""

    __slots__ = ("_blocks", "_constraints", "_merged", "_occupancy", "size", "unit")

    def __init__(
        self,
        unit: Unit,
        constraints: Constraints,
        occupancy: Occupancy,
        spans: Mapping[str, Interval],
    ) -> None:
        self.unit = unit
        self.size = unit.size
        self._constraints = constraints
        self._occupancy = occupancy
        # Per member: what it must stay clear of, sorted by start.
        members = unit.members
        if len(members) == 1:  # most units: skip the loop
            self._blocks = [_blocked(members[0], constraints, occupancy, spans)]
        else:
            self._blocks = [_blocked(m, constraints, occupancy, spans) for m in members]
        self._merged: list[tuple[list[int], list[int]]] | None = None

    def lowest(self, at: int) -> int | None:
        unit = self.unit
        limit = self._constraints.memory_size - unit.size
        if len(unit.members) == 1:
            x = scan(self._blocks[0], at, unit.size, unit.base_residue, unit.base_modulus)
        else:
            x = self._lowest_sequence(at, limit)
        return x if x <= limit else None

    def _lowest_sequence(self, at: int, limit: int) -> int:
        # Raise the base until every member is clear at once; it only rises.
        unit = self.unit
        if self._merged is None:
            self._merged = [merge(blocks) for blocks in self._blocks]
        residue, modulus = unit.base_residue, unit.base_modulus
        x = at + (residue - at) % modulus
        settled = False
        while not settled and x <= limit:
            settled = True
            for member, offset, (starts, ends) in zip(
                unit.members, unit.offsets, self._merged, strict=True
            ):
                y = skip(
                    starts, ends, x + offset, member.size, (residue + offset) % modulus, modulus
                )
                if y != x + offset:
                    x = y - offset
                    settled = False
                    break
            if settled:
                x, settled = self._separate_members(x)
        return x

    def _separate_members(self, x: int) -> tuple[int, bool]:
        """``(x, True)`` when members that conflict with each other share no element
        at base x, else a higher candidate base and False."""
        unit = self.unit
        constraints = self._constraints
        elements = constraints.elements
        for a, b in constraints.inner.get(unit.id, ()):
            bottom_of_b = x + unit.offsets[b]
            element = constraints.element(bottom_of_b)
            if constraints.element(x + unit.offsets[a] + unit.members[a].size - 1) < element:
                continue
            # Both lie in one element: raise the base until the next boundary falls between.
            if element + 1 >= len(elements):
                return constraints.memory_size, False
            raised = elements[element + 1] - unit.offsets[b]
            return raised + (unit.base_residue - raised) % unit.base_modulus, False
        return x, True

    def holes(self) -> list[Interval]:
        unit = self.unit
        if len(unit.members) == 1:
            blocks = self._blocks[0]
        else:
            # The hull: what is alive at any step of the unit's lifetime, plus every
            # member's own exclusions (repeats are harmless).
            blocks = self._occupancy.alive(unit.start, unit.end)
            for member_blocks in self._blocks:
                blocks += member_blocks
            blocks.sort()
        return gaps(*merge(blocks))


def _blocked(
    request: Request,
    constraints: Constraints,
    occupancy: Occupancy,
    spans: Mapping[str, Interval],
) -> list[Interval]:
    """What one request must stay clear of, sorted by start and ending in a sentinel."""
    blocks = occupancy.alive(request.start, request.end)
    blocks += constraints.outside[request.id]
    partners = constraints.partners.get(request.id)
    if partners:
        blocks += [spans[p] for p in partners if p in spans]
    blocks.sort()
    return blocks
