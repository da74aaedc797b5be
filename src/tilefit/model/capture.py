"""The capture: every allocation request of one tile, as plain immutable data.

These types carry no behaviour beyond small derived facts that the format
itself defines (a request's allowed set, a sequence's aligned bases). Loading
and validation live in ``tilefit.formats.load``; writing in ``tilefit.formats.save``.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from math import gcd
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a capture without an allocator never loads it
    from tilefit.model.lmem import LmemAllocator

FORMAT = "tilefit-capture"
VERSION = 1
DEFAULT_CLASS = "default"
DEFAULT_PRODUCTION: tuple[str, ...] = ("lifetime/first-fit", "alignment/first-fit")

Interval = tuple[int, int]
"""A half-open address or step interval ``[start, end)``."""


def element_index(starts: tuple[int, ...], address: int) -> int:
    """The index of the memory element holding ``address``, given the elements' start
    addresses in ascending order (the first 0; a trailing memory size changes nothing for
    an address inside the memory). The one lookup of the engine and the search; the
    compiled kernels have their own (``tilefit.search.kernel.place.element_of``), and the
    referee (``tilefit.verdicts.check``) keeps its own on purpose."""
    return bisect_right(starts, address) - 1


@dataclass(frozen=True, slots=True)
class Range:
    """An available address range, optionally open only to some classes."""

    start: int
    end: int
    name: str | None = None
    classes: tuple[str, ...] | None = None  # None: every class

    def admits(self, cls: str) -> bool:
        return self.classes is None or cls in self.classes

    @property
    def size(self) -> int:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Memory:
    """The tile's address space, its memory elements and what is available."""

    size: int
    ranges: tuple[Range, ...]
    elements: tuple[int, ...] = (0,)
    interleaved_offset: int | None = None  # None: no interleaved region

    @property
    def interleaved_start(self) -> int:
        return self.size if self.interleaved_offset is None else self.interleaved_offset

    @property
    def available(self) -> int:
        """Available storage: the total size of all ranges."""
        return sum(r.size for r in self.ranges)

    def allowed(self, cls: str, interleaved: bool = False) -> tuple[Interval, ...]:
        """The allowed set of a request of this class, adjacent ranges joined."""
        low = self.interleaved_start if interleaved else 0
        parts = sorted(
            (max(r.start, low), r.end) for r in self.ranges if r.admits(cls) and r.end > low
        )
        joined: list[Interval] = []
        for start, end in parts:
            if start >= end:
                continue
            if joined and joined[-1][1] == start:
                joined[-1] = (joined[-1][0], end)
            else:
                joined.append((start, end))
        return tuple(joined)


@dataclass(frozen=True, slots=True)
class Request:
    """One allocation request: its bytes are occupied during steps [start, end).

    In a cyclic capture (``Capture.period`` set) a request with ``start > end`` wraps
    around the circle: it lives during [start, period) and then [0, end)
    (``tilefit.model.arcs``). In a linear capture ``start < end`` always holds.
    """

    id: str
    size: int
    start: int
    end: int
    alignment: int = 1
    cls: str = DEFAULT_CLASS
    interleaved: bool = False
    label: str | None = None
    source: str | None = None  # the code that makes it (a program line, an operator): grouped by
    name: str | None = None  # a short name drawn on its box in a map (None: its id)

    @property
    def shown(self) -> str:
        """What a memory map writes on its box: its short name, else its id."""
        return self.name or self.id

    @property
    def wraps(self) -> bool:
        """Whether its lifetime wraps around a cyclic capture's circle (start > end)."""
        return self.end <= self.start

    def lives_at(self, step: int) -> bool:
        """Whether it is live at ``step``: on a circle when it wraps."""
        if self.end <= self.start:
            return step >= self.start or step < self.end
        return self.start <= step < self.end

    def lives_with(self, other: Request) -> bool:
        """Whether the two lifetimes share a step: on a circle when either wraps.

        A wrapping lifetime holds the circle's last step and its first, so two that
        wrap always meet; a linear one meets a wrapping one when it reaches past the
        wrapping one's start or begins before its end. No period is needed.
        """
        if self.end <= self.start:
            return other.end <= other.start or other.end > self.start or other.start < self.end
        if other.end <= other.start:
            return self.end > other.start or self.start < other.end
        return self.start < other.end and other.start < self.end


@dataclass(frozen=True, slots=True)
class Sequence:
    """A contiguous (Repeat) sequence: members placed back to back, in order."""

    id: str
    members: tuple[str, ...]
    repeat: str | None = None


@dataclass(frozen=True, slots=True)
class Conflict:
    """A bank-conflict edge: the bytes of ``a`` and ``b`` share no memory element."""

    a: str
    b: str


@dataclass(frozen=True, slots=True)
class Origin:
    """The allocator a capture was imported from, and the heap it made.

    ``heap`` is that allocator's own memory top for these requests (XLA's
    preallocated temp size), the yardstick tilefit's answers are set beside.
    """

    tool: str  # for example "XLA"
    heap: int
    source: str | None = None  # where it came from, for example the dump module and allocation
    plan: str = "heap"  # what the tool calls the memory it planned (TFLM: its arena's "head")
    # set where the tool's own allocation failed: the requests it placed before it did (its
    # heap is then no plan's top, only how much memory its plan would have needed at least)
    placed: int | None = None

    @property
    def complete(self) -> bool:
        """Whether the tool placed every request (its heap is a plan's top)."""
        return self.placed is None


@dataclass(frozen=True)
class Capture:
    """Every allocation request of one tile, exactly as the allocator saw them."""

    name: str
    horizon: int
    memory: Memory
    requests: tuple[Request, ...]
    sequences: tuple[Sequence, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    production: tuple[str, ...] = DEFAULT_PRODUCTION
    observed_failed: str | None = None
    # where the production compiler placed what it placed before that failure, where known
    observed_offsets: tuple[tuple[str, int], ...] | None = None
    tile: int | None = None
    origin: Origin | None = None  # set on imports from a compiler (tilefit import)
    period: int | None = None  # set: steps lie on a circle of this many (= horizon), see arcs
    # what a production allocator replayed whole is given (``production`` names it)
    allocator: LmemAllocator | None = None

    @property
    def cyclic(self) -> bool:
        """Whether the steps lie on a circle (a request may wrap; see ``tilefit.model.arcs``)."""
        return self.period is not None

    @cached_property
    def wraps(self) -> bool:
        """Whether some request wraps around the circle: where a linear view is not exact."""
        return any(r.end <= r.start for r in self.requests)

    @cached_property
    def request_by_id(self) -> dict[str, Request]:
        return {r.id: r for r in self.requests}

    @cached_property
    def sequence_by_id(self) -> dict[str, Sequence]:
        return {s.id: s for s in self.sequences}

    @cached_property
    def sequence_of(self) -> dict[str, str]:
        """Request id -> id of the sequence it belongs to."""
        return {m: s.id for s in self.sequences for m in s.members}

    def members(self, ident: str) -> tuple[str, ...]:
        """The request ids an id stands for: a sequence's members, or the request."""
        seq = self.sequence_by_id.get(ident)
        return seq.members if seq is not None else (ident,)

    @property
    def available(self) -> int:
        return self.memory.available


def sequence_base(sizes: tuple[int, ...], alignments: tuple[int, ...]) -> tuple[int, int] | None:
    """The base offsets that align every member of a back-to-back block.

    Member k sits at ``base + sum(sizes[:k])`` and needs ``alignments[k]``.
    Returns ``(residue, modulus)``: valid bases are ``base % modulus == residue``;
    ``None`` when no base aligns every member at once.
    """
    residue, modulus = 0, 1
    prefix = 0
    for size, align in zip(sizes, alignments, strict=True):
        # Need base ≡ -prefix (mod align); merge with base ≡ residue (mod modulus).
        target = (-prefix) % align
        merged = _merge_congruence(residue, modulus, target, align)
        if merged is None:
            return None
        residue, modulus = merged
        prefix += size
    return residue, modulus


def _merge_congruence(r1: int, m1: int, r2: int, m2: int) -> tuple[int, int] | None:
    g = gcd(m1, m2)
    if (r2 - r1) % g:
        return None
    lcm = m1 // g * m2
    # Solve r1 + m1 * k ≡ r2 (mod m2) for k.
    k = ((r2 - r1) // g * pow(m1 // g, -1, m2 // g)) % (m2 // g) if m2 // g > 1 else 0
    return (r1 + m1 * k) % lcm, lcm


def align_up(value: int, residue: int, modulus: int) -> int:
    """The least x >= value with x % modulus == residue."""
    return value + (residue - value) % modulus
