"""Searches over blocked address intervals: the lowest aligned offset that is clear.

Every list of blocked intervals a search receives ends in a sentinel block
reaching past any memory, so each search ends and a result past the memory
means "no room".
"""

from __future__ import annotations

from bisect import bisect_right

from tilefit.model.capture import Interval


def scan(blocks: list[Interval], at: int, size: int, residue: int, modulus: int) -> int:
    """The lowest ``x >= at``, ``x % modulus == residue``, with ``[x, x + size)`` clear.

    ``blocks`` is sorted by start; intervals may overlap or repeat.
    """
    x = at + (residue - at) % modulus
    top = x + size
    if modulus == 1:  # the same loop without the rounding: twice as quick
        for lo, hi in blocks:
            if lo >= top:
                break
            if hi > x:
                x = hi
                top = hi + size
        return x
    for lo, hi in blocks:
        if lo >= top:
            break
        if hi > x:
            x = hi + (residue - hi) % modulus
            top = x + size
    return x


def merge(blocks: list[Interval]) -> tuple[list[int], list[int]]:
    """Sorted blocks as disjoint intervals (starts, ends), touching ones joined."""
    starts: list[int] = []
    ends: list[int] = []
    for lo, hi in blocks:
        if ends and lo <= ends[-1]:
            if hi > ends[-1]:
                ends[-1] = hi
        else:
            starts.append(lo)
            ends.append(hi)
    return starts, ends


def skip(starts: list[int], ends: list[int], at: int, size: int, residue: int, modulus: int) -> int:
    """As ``scan``, over disjoint intervals: a binary search per interval jumped over."""
    x = at + (residue - at) % modulus
    while True:
        k = bisect_right(ends, x)
        if k == len(starts) or starts[k] >= x + size:
            return x
        hi = ends[k]
        x = hi + (residue - hi) % modulus


def free(blocks: list[Interval]) -> list[Interval]:
    """The maximal intervals from address 0 clear of ``blocks`` (sorted by start, with
    sentinel), in address order."""
    out: list[Interval] = []
    x = 0
    for lo, hi in blocks:
        if lo > x:
            out.append((x, lo))
        if hi > x:
            x = hi
    return out
