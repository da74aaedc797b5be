"""One tensor's free list in TPU-MLIR's allocator: the LMEM blocks still open to it.

Blocks are ``(start, size)`` in address order. Taking a range out of the list trims,
drops or splits the blocks it touches; TPU-MLIR notes when a block was split or lost
its head (``space_split``), the cue for trying in-place reuse.
"""

from __future__ import annotations

Block = tuple[int, int]  # (start, size)


def exclude(blocks: list[Block], start: int, size: int) -> tuple[list[Block], bool]:
    """The blocks with ``[start, start + size)`` taken out, and whether one was split or
    lost its head (TPU-MLIR's ``update_avail_lmems`` over a block)."""
    end = start + size
    kept: list[Block] = []
    split = False
    for first, length in blocks:
        last = first + length
        if first >= start and last <= end:
            continue  # inside the range: gone
        if first < start < last <= end:
            kept.append((first, start - first))  # its tail cut
        elif start <= first < end < last:
            split = split or first == start
            kept.append((end, last - end))  # its head cut
        elif first < start and last > end:
            kept.append((first, start - first))  # cut in two
            kept.append((end, last - end))
            split = True
        else:
            kept.append((first, length))
    return kept, split


def at_least(blocks: list[Block], size: int) -> list[Block]:
    """The blocks that can hold ``size`` bytes."""
    return [b for b in blocks if b[1] >= size]


def align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment
