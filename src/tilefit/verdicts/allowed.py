"""Half-open spans and the addresses a request's class may use, straight from the
spec's text: the referee's own reading (``tilefit.verdicts.check`` and its columns),
sharing nothing with the placement engine."""

from __future__ import annotations

from tilefit.model.capture import Memory

Span = tuple[int, int]  # half-open [start, end): addresses, steps or element indices


def allowed_set(memory: Memory, cls: str, interleaved: bool) -> list[Span]:
    """The ranges admitting ``cls``, cut to the interleaved region if asked, joined."""
    low = 0
    if interleaved:
        low = memory.size if memory.interleaved_offset is None else memory.interleaved_offset
    return union(
        [
            (max(r.start, low), r.end)
            for r in memory.ranges
            if (r.classes is None or cls in r.classes) and r.end > max(r.start, low)
        ]
    )


def union(spans: list[Span]) -> list[Span]:
    """The spans joined where they meet or overlap, in order."""
    out: list[Span] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


def intersect(xs: list[Span], ys: list[Span]) -> list[Span]:
    """The spans two sorted, disjoint lists share."""
    out: list[Span] = []
    i = j = 0
    while i < len(xs) and j < len(ys):
        lo, hi = max(xs[i][0], ys[j][0]), min(xs[i][1], ys[j][1])
        if lo < hi:
            out.append((lo, hi))
        if xs[i][1] <= ys[j][1]:
            i += 1
        else:
            j += 1
    return out
