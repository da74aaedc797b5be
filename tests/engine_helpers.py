"""Shared by the engine tests: random small captures with every constraint kind,
and a brute-force referee that knows nothing of the engine's data structures."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise

from hypothesis import strategies as st

from tilefit.model.capture import (
    Capture,
    Conflict,
    Interval,
    Memory,
    Range,
    Request,
    Sequence,
    sequence_base,
)
from tilefit.model.units import Unit

CLASSES = ("default", "resident", "scratch")


@st.composite
def memories(draw: st.DrawFn) -> Memory:
    size = draw(st.integers(32, 96))
    cuts = sorted(draw(st.sets(st.integers(1, size - 1), max_size=5)))
    bounds = [0, *cuts, size]
    ranges = []
    for lo, hi in pairwise(bounds):
        if draw(st.integers(0, 6)) == 0:
            continue  # a gap: unavailable memory
        classes = draw(
            st.one_of(
                st.none(), st.none(), st.lists(st.sampled_from(CLASSES), min_size=1, unique=True)
            )
        )
        ranges.append(Range(lo, hi, None, None if classes is None else tuple(classes)))
    if not ranges:
        ranges.append(Range(0, size))
    elements = sorted({0, *draw(st.sets(st.integers(1, size - 1), max_size=8))})
    interleaved = draw(st.one_of(st.none(), st.integers(0, size)))
    return Memory(size, tuple(ranges), tuple(elements), interleaved)


@st.composite
def captures(draw: st.DrawFn, max_requests: int = 8) -> Capture:
    """A small capture using every constraint kind: classes, interleaving, gaps
    between ranges, alignment, sequences with their own member lifetimes,
    conflicts (by request and by sequence), whole-horizon and to-horizon lifetimes."""
    memory = draw(memories())
    horizon = draw(st.integers(1, 10))
    count = draw(st.integers(1, max_requests))
    requests = []
    for k in range(count):
        start = draw(st.integers(0, horizon - 1))
        end = draw(st.one_of(st.integers(start + 1, horizon), st.just(horizon)))
        requests.append(
            Request(
                id=f"r{k}",
                size=draw(st.integers(1, 12)),
                start=start,
                end=end,
                alignment=draw(st.sampled_from((1, 1, 2, 4, 8))),
                cls=draw(st.sampled_from(CLASSES)),
                interleaved=draw(st.integers(0, 7)) == 0,
            )
        )
    ids = [r.id for r in requests]
    order = draw(st.permutations(ids))
    sequences: list[Sequence] = []
    position = 0
    by_id = {r.id: r for r in requests}
    while position < len(order):
        length = draw(st.integers(1, 3))
        members = tuple(order[position : position + length])
        position += length
        if length > 1 or draw(st.booleans()):
            reqs = [by_id[m] for m in members]
            if sequence_base(tuple(r.size for r in reqs), tuple(r.alignment for r in reqs)):
                sequences.append(Sequence(f"s{len(sequences)}", members))
    side = {s.id: set(s.members) for s in sequences}
    names = ids + [s.id for s in sequences]
    conflicts = []
    pairs = st.tuples(st.sampled_from(names), st.sampled_from(names))
    for a, b in draw(st.lists(pairs, max_size=4)):
        if not side.get(a, {a}) & side.get(b, {b}):
            conflicts.append(Conflict(a, b))
    return Capture(
        name="random",
        horizon=horizon,
        memory=memory,
        requests=tuple(requests),
        sequences=tuple(sequences),
        conflicts=tuple(conflicts),
    )


# ----------------------------------------------------------------- the referee


def elements_touched(memory: Memory, lo: int, hi: int) -> set[int]:
    bounds = [*memory.elements, memory.size]
    return {k for k in range(len(memory.elements)) if bounds[k] < hi and bounds[k + 1] > lo}


def partners(capture: Capture, request_id: str) -> set[str]:
    out: set[str] = set()
    for edge in capture.conflicts:
        a, b = capture.members(edge.a), capture.members(edge.b)
        if request_id in a:
            out.update(b)
        if request_id in b:
            out.update(a)
    return out


def inside(allowed: tuple[Interval, ...], lo: int, hi: int) -> bool:
    return any(start <= lo and hi <= end for start, end in allowed)


def valid_base(capture: Capture, unit: Unit, base: int, placed: Mapping[str, int]) -> bool:
    """Whether every member of ``unit`` may sit at ``base + offsets[k]`` next to ``placed``."""
    memory = capture.memory
    by_id = capture.request_by_id
    spots = {}
    for member, offset in zip(unit.members, unit.offsets, strict=True):
        lo = base + offset
        hi = lo + member.size
        spots[member.id] = (lo, hi)
        if lo < 0 or lo % member.alignment:
            return False
        if not inside(memory.allowed(member.cls, member.interleaved), lo, hi):
            return False
        for other_id, other_lo in placed.items():
            other = by_id[other_id]
            if member.lives_with(other) and other_lo < hi and lo < other_lo + other.size:
                return False
        mine = elements_touched(memory, lo, hi)
        for p in partners(capture, member.id):
            if p in placed and mine & elements_touched(
                memory, placed[p], placed[p] + by_id[p].size
            ):
                return False
    for member in unit.members:
        for p in partners(capture, member.id) & spots.keys():
            if elements_touched(memory, *spots[member.id]) & elements_touched(memory, *spots[p]):
                return False
    return True


def valid_bases(capture: Capture, unit: Unit, placed: Mapping[str, int]) -> list[int]:
    return [
        b
        for b in range(capture.memory.size - unit.size + 1)
        if valid_base(capture, unit, b, placed)
    ]


def hull_holes(capture: Capture, unit: Unit, placed: Mapping[str, int]) -> list[Interval]:
    """The unit's holes as ``tilefit.engine.space`` defines them, address by address."""
    memory = capture.memory
    by_id = capture.request_by_id
    hull = Request("hull", 1, unit.start, unit.end)
    free = []
    for address in range(memory.size):
        ok = all(
            inside(memory.allowed(m.cls, m.interleaved), address, address + 1) for m in unit.members
        )
        for other_id, lo in placed.items():
            other = by_id[other_id]
            if other.lives_with(hull) and lo <= address < lo + other.size:
                ok = False
        for member in unit.members:
            for p in partners(capture, member.id):
                if p in placed and elements_touched(
                    memory, address, address + 1
                ) & elements_touched(memory, placed[p], placed[p] + by_id[p].size):
                    ok = False
        free.append(ok)
    holes = []
    start = None
    for address, ok in enumerate([*free, False]):
        if ok and start is None:
            start = address
        if not ok and start is not None:
            holes.append((start, address))
            start = None
    return holes


def check_valid(capture: Capture, offsets: Mapping[str, int]) -> None:
    """Assert the independent checker accepts a complete placement."""
    from tilefit.model.placement import Placement
    from tilefit.verdicts.check import check

    result = check(capture, Placement(capture.name, offsets))
    assert result.valid, result.violations
