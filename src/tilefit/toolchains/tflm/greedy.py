"""TFLM's GreedyMemoryPlanner, step for step (memory_planner/greedy_memory_planner.cc).

Buffers with an offline offset keep it and come first, in the order added;
the others follow, largest first, and each takes the lowest offset where it
fits among the buffers already placed that are live at any scope of its own
(lifetimes inclusive). Equal sizes go in the reverse of the order added: the
planner lists online buffers from the tail and its bubble sort is stable.
"""

from __future__ import annotations

from collections.abc import Sequence

from tilefit.toolchains.tflm.arena import ONLINE, Buffer


def greedy_offsets(buffers: Sequence[Buffer]) -> list[int]:
    """The offset TFLM's planner gives each buffer, in the order given."""
    fixed = [i for i, b in enumerate(buffers) if b.offline != ONLINE]
    online = [i for i, b in enumerate(buffers) if b.offline == ONLINE][::-1]
    online.sort(key=lambda i: -buffers[i].size)  # stable, as the planner's bubble sort
    offsets = [ONLINE] * len(buffers)
    placed: list[tuple[int, int]] = []  # (offset, buffer index), ascending offset
    for i in fixed + online:
        wanted = buffers[i]
        if wanted.offline != ONLINE:
            offset = wanted.offline
        else:
            offset = 0
            for at, j in placed:
                other = buffers[j]
                if other.first > wanted.last or wanted.first > other.last:
                    continue  # not live together
                if at - offset >= wanted.size:
                    break  # the gap below this one holds it
                offset = max(offset, at + other.size)
        offsets[i] = offset
        # after every entry at or below its offset, as the planner's list insert
        k = len(placed)
        while k and placed[k - 1][0] > offset:
            k -= 1
        placed.insert(k, (offset, i))
    return offsets


def head(buffers: Sequence[Buffer], offsets: Sequence[int]) -> int:
    """The top of a plan: what TFLM reserves for the head (GetMaximumMemorySize)."""
    return max((o + b.size for b, o in zip(buffers, offsets, strict=True)), default=0)
