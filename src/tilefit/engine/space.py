"""The free space for one unit, given the units placed so far.

A base offset is **valid** for a unit when every member k, at
``base + offsets[k]``, is aligned, lies inside its own allowed set, is clear
of every placed request alive during member k's own lifetime, and touches no
memory element that one of member k's placed conflict partners touches; and
two members that conflict with each other touch no common element.

A unit's **holes** are the maximal address intervals inside the allowed set
of every member, clear of every placed request alive at some step of the
unit's lifetime (the hull of its members' lifetimes), after removing the
memory elements touched by the placed conflict partners of any member (on a
cyclic capture's circle, a lifetime that wraps counts as its two pieces). For a
request this is exactly the spec's hole. For a sequence it is the hole of its
block hull: a conservative view, since a member need not avoid what is placed
outside its own lifetime.
"""

from __future__ import annotations

from collections.abc import Mapping

from tilefit.engine.constraints import Constraints
from tilefit.engine.occupancy import Occupancy
from tilefit.model.capture import Interval, Request
from tilefit.model.intervals import free, merge, scan, skip
from tilefit.model.units import Unit

Merged = tuple[list[int], list[int]]
"""Disjoint ascending intervals as (starts, ends)."""


class UnitSpace:
    """Implements ``tilefit.engine.fits.Space`` for one unit."""

    __slots__ = ("_alive", "_blocks", "_constraints", "_members", "_occupancy", "size", "unit")

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
        members = unit.members
        if len(members) == 1:
            # Most units: one sorted list of everything to stay clear of, scanned once.
            request = members[0]
            blocks = occupancy.alive(request.start, request.end)
            _add_exclusions(blocks, request, constraints, spans)
            blocks.sort()
            self._blocks = blocks
            return
        # A sequence: per member, what is alive during its lifetime (members often
        # share one) and its own exclusions, each merged for binary searches.
        self._alive: dict[Interval, Merged] = {}
        self._members: list[tuple[Merged, list[Interval]]] = []
        for member in members:
            lifetime = (member.start, member.end)
            if lifetime not in self._alive:
                self._alive[lifetime] = occupancy.alive_merged(*lifetime)
            exclusions: list[Interval] = []
            _add_exclusions(exclusions, member, constraints, spans)
            exclusions.sort()
            self._members.append((self._alive[lifetime], exclusions))

    def lowest(self, at: int) -> int | None:
        unit = self.unit
        limit = self._constraints.memory_size - unit.size
        if len(unit.members) == 1:
            x = scan(self._blocks, at, unit.size, unit.base_residue, unit.base_modulus)
        else:
            x = self._lowest_sequence(at, limit)
        return x if x <= limit else None

    def _lowest_sequence(self, at: int, limit: int) -> int:
        # Raise the base until every member is clear at once; it only rises.
        unit = self.unit
        residue, modulus = unit.base_residue, unit.base_modulus
        members = [
            (member.size, offset, alive, merge(exclusions))
            for member, offset, (alive, exclusions) in zip(
                unit.members, unit.offsets, self._members, strict=True
            )
        ]
        x = at + (residue - at) % modulus
        settled = False
        while not settled and x <= limit:
            settled = True
            for size, offset, alive, excluded in members:
                y = _clear(alive, excluded, x + offset, size, (residue + offset) % modulus, modulus)
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
            if a == b:  # a member in conflict with its own sequence: never apart
                return constraints.memory_size, False
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
            return free(self._blocks)
        # The hull: what is alive at any step of the unit's lifetime, plus every
        # member's own exclusions. On a circle, where a member wraps, the members'
        # own lifetimes stand for the hull (the least and the latest step do not).
        if any(m.wraps for m in unit.members):
            blocks = [b for m in unit.members for b in self._occupancy.alive(m.start, m.end)]
        else:
            hull = (unit.start, unit.end)
            starts, ends = self._alive.get(hull) or self._occupancy.alive_merged(*hull)
            blocks = list(zip(starts, ends, strict=True))
        for _, exclusions in self._members:
            blocks += exclusions
        blocks.sort()
        return free(blocks)


def _add_exclusions(
    blocks: list[Interval],
    request: Request,
    constraints: Constraints,
    spans: Mapping[str, Interval],
) -> None:
    """Add where a request may not go whatever its lifetime: outside its allowed set
    (up to a sentinel past the memory) and the elements its placed partners touch."""
    blocks += constraints.outside[request.id]
    partners = constraints.partners.get(request.id)
    if partners:
        blocks += [spans[p] for p in partners if p in spans]


def _clear(alive: Merged, excluded: Merged, at: int, size: int, residue: int, modulus: int) -> int:
    """The lowest aligned ``x >= at`` with ``[x, x + size)`` clear of both interval sets."""
    x = at
    while True:
        y = skip(*alive, x, size, residue, modulus)
        x = skip(*excluded, y, size, residue, modulus)
        if x == y:
            return x
