"""Brute force for tiny captures: try every offset of every unit, straight from the spec text."""

from __future__ import annotations

from tilefit.model.capture import Capture, Request
from tilefit.model.deadline import Deadline
from tilefit.search import SOLVED, TIMEOUT, exact_search
from tilefit.search.problem import Problem
from tilefit.verdicts.check import check


def _elements(capture: Capture, lo: int, hi: int) -> set[int]:
    starts = capture.memory.elements
    return {k for k, s in enumerate(starts) if s < hi and lo < _element_end(capture, k)}


def _element_end(capture: Capture, k: int) -> int:
    starts = capture.memory.elements
    return starts[k + 1] if k + 1 < len(starts) else capture.memory.size


def _inside(capture: Capture, request: Request, offset: int) -> bool:
    allowed = capture.memory.allowed(request.cls, request.interleaved)
    return any(lo <= offset and offset + request.size <= hi for lo, hi in allowed)


def valid(capture: Capture, offsets: dict[str, int]) -> bool:
    """Rules 2-6 of the spec for the requests that have an offset."""
    by_id = capture.request_by_id
    placed = [(by_id[i], o) for i, o in offsets.items()]
    for r, o in placed:
        if o % r.alignment or not _inside(capture, r, o):
            return False
    for k, (r, o) in enumerate(placed):
        for s, p in placed[k + 1 :]:
            if r.lives_with(s) and o < p + s.size and p < o + r.size:
                return False
    for seq in capture.sequences:
        if all(m in offsets for m in seq.members):
            for a, b in zip(seq.members, seq.members[1:], strict=False):
                if offsets[b] != offsets[a] + by_id[a].size:
                    return False
    for edge in capture.conflicts:
        a = [m for m in capture.members(edge.a) if m in offsets]
        b = [m for m in capture.members(edge.b) if m in offsets]
        ea: set[int] = set()
        eb: set[int] = set()
        for m in a:
            ea |= _elements(capture, offsets[m], offsets[m] + by_id[m].size)
        for m in b:
            eb |= _elements(capture, offsets[m], offsets[m] + by_id[m].size)
        if ea & eb:
            return False
    return True


def brute_force(capture: Capture, fixed: dict[str, int] | None = None) -> dict[str, int] | None:
    """A valid placement, or None when no offsets at all make one (with the requests in
    ``fixed`` at their offsets there)."""
    fixed = fixed or {}
    by_id = capture.request_by_id
    groups: list[tuple[str, ...]] = []
    for r in capture.requests:
        seq = capture.sequence_of.get(r.id)
        if seq is None:
            groups.append((r.id,))
        elif capture.sequence_by_id[seq].members[0] == r.id:
            groups.append(capture.sequence_by_id[seq].members)
    groups = [g for g in groups if not all(m in fixed for m in g)]
    offsets: dict[str, int] = dict(fixed)
    if not valid(capture, offsets):
        return None

    def spots(members: tuple[str, ...]) -> list[int]:
        """The bases where the group alone, beside the fixed ones, breaks no rule (any
        valid placement has each group at one of them: every rule holds for a part)."""
        out = []
        for base in range(capture.memory.size):
            at = base
            for m in members:
                offsets[m] = at
                at += by_id[m].size
            if at <= capture.memory.size and valid(capture, offsets):
                out.append(base)
            for m in members:
                del offsets[m]
        return out

    candidates = [spots(g) for g in groups]

    def place(k: int) -> bool:
        if k == len(groups):
            return True
        members = groups[k]
        for base in candidates[k]:
            at = base
            for m in members:
                offsets[m] = at
                at += by_id[m].size
            if valid(capture, offsets) and place(k + 1):
                return True
            for m in members:
                del offsets[m]
        return False

    return dict(offsets) if place(0) else None


def same_verdict_as_brute_force(capture: Capture) -> bool:
    """The bare exact search answers as brute force does (its placement valid by the
    referee and by brute force's own rules); whether it placed the capture."""
    expected = brute_force(capture)
    result = exact_search(Problem(capture), Deadline.start(60), node_limit=200_000)
    assert result.status != TIMEOUT
    assert (result.status == SOLVED) == (expected is not None)
    if result.status == SOLVED:
        assert result.placement is not None
        assert check(capture, result.placement).valid
        assert valid(capture, dict(result.placement.offsets))
    else:
        assert result.placement is None
    return result.status == SOLVED
