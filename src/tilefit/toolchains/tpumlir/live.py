"""The bytes an attempt keeps live at each timestep of its circle.

Each tensor counts its bytes with the end aligned up to the chip's EU bytes (as the
allocator takes ranges out of the free lists) at every timestep of its arc (every one
when held). A failed attempt whose busiest timestep fits in LMEM is not short of
memory at any single timestep: either the heaviest set of pairwise-meeting arcs is too
heavy (arcs on a circle can meet pairwise without sharing a timestep) or the greedy
lost bytes to holes and bank boundaries, which is the question tilefit's cyclic
captures answer.
"""

from __future__ import annotations

from tilefit.engine.lmem.freelist import align_up
from tilefit.toolchains.tpumlir.attempt import Attempt


def live_bytes(attempt: Attempt) -> tuple[int, ...]:
    """Bytes live at each timestep 0 .. T - 1."""
    eu = attempt.chip.eu_bytes
    live = [0] * attempt.period
    for tensor in attempt.tensors:
        for step in tensor.arc.steps():
            live[step] += align_up(tensor.size, eu)
    return tuple(live)


def busiest(attempt: Attempt) -> int:
    return max(live_bytes(attempt))
