"""The fixed facts a placement search asks about every request, computed once per capture.

Where a request may not go whatever else is placed (outside its allowed
set), whom it must keep away from (its conflict partners, sequences
expanded to their members), and which memory elements an address interval
touches.
"""

from __future__ import annotations

from dataclasses import dataclass

from tilefit.model.capture import Capture, Interval, Memory, Request, element_index
from tilefit.model.units import Unit

UNBOUNDED = 1 << 80
"""An address beyond every memory: the end of the sentinel block past the allowed set."""


def outside(memory: Memory, request: Request) -> tuple[Interval, ...]:
    """Where ``request`` may not go in ``memory``: the complement of its allowed set, with
    a sentinel block past it (``Constraints.outside``, for one request)."""
    return _complement(memory.allowed(request.cls, request.interleaved))


@dataclass(frozen=True)
class Constraints:
    """Where each request may go: the memory, its elements, allowed sets and conflicts."""

    memory_size: int
    elements: tuple[int, ...]  # element start addresses, ascending, first 0
    outside: dict[str, tuple[Interval, ...]]  # request id -> complement of its allowed set
    partners: dict[str, tuple[str, ...]]  # request id -> conflicting request ids
    inner: dict[str, tuple[tuple[int, int], ...]]  # unit id -> conflicting member index pairs

    @classmethod
    def of(cls, capture: Capture, units: tuple[Unit, ...]) -> Constraints:
        memory = capture.memory
        by_key: dict[tuple[str, bool], tuple[Interval, ...]] = {}
        outside: dict[str, tuple[Interval, ...]] = {}
        for request in capture.requests:
            key = (request.cls, request.interleaved)
            if key not in by_key:
                by_key[key] = _complement(memory.allowed(*key))
            outside[request.id] = by_key[key]
        partners: dict[str, set[str]] = {}
        for edge in capture.conflicts:
            for a in capture.members(edge.a):
                for b in capture.members(edge.b):
                    partners.setdefault(a, set()).add(b)
                    partners.setdefault(b, set()).add(a)
        inner: dict[str, tuple[tuple[int, int], ...]] = {}
        for unit in units:
            if len(unit.members) > 1:
                pairs = _inner_pairs(unit, partners)
                if pairs:
                    inner[unit.id] = pairs
        return cls(
            memory_size=memory.size,
            elements=memory.elements,
            outside=outside,
            partners={k: tuple(sorted(v)) for k, v in partners.items()},
            inner=inner,
        )

    def element(self, address: int) -> int:
        """The index of the memory element holding ``address``."""
        return element_index(self.elements, address)

    def element_span(self, lo: int, hi: int) -> Interval:
        """The addresses of the memory elements that ``[lo, hi)`` touches."""
        elements = self.elements
        last = self.element(hi - 1) + 1
        return elements[self.element(lo)], (
            elements[last] if last < len(elements) else self.memory_size
        )


def _complement(allowed: tuple[Interval, ...]) -> tuple[Interval, ...]:
    """Everything outside ``allowed``, up to a sentinel block that no search passes."""
    out: list[Interval] = []
    x = 0
    for start, end in allowed:
        if start > x:
            out.append((x, start))
        x = end
    out.append((x, UNBOUNDED))
    return tuple(out)


def _inner_pairs(unit: Unit, partners: dict[str, set[str]]) -> tuple[tuple[int, int], ...]:
    position = {m.id: k for k, m in enumerate(unit.members)}
    pairs = {
        (k, position[p])
        for k, m in enumerate(unit.members)
        for p in partners.get(m.id, ())
        if p in position and position[p] >= k  # k with k: a member in conflict with itself
    }
    return tuple(sorted(pairs))
