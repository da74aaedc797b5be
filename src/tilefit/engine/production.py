"""Production allocators replayed whole, the registry: a capture whose ``production``
names one (``tpumlir``) and whose ``allocator`` gives its inputs has that allocator's own
attempt replayed, not tilefit's nearest strategy to it.

An allocator replayed answers an ``Attempt`` as a strategy does: the requests it placed,
in the order placed, and where it failed, the unit it found no room for, with the holes
over that unit's lifetime. Its request ids are its tensors' names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tilefit.model.intervals import free
from tilefit.model.lmem import NAME

if TYPE_CHECKING:  # loading a capture asks for the names only: numpy stays unloaded
    from tilefit.engine.attempt import Attempt, Prepared
    from tilefit.engine.strategy import Replaying
    from tilefit.model.capture import Capture
    from tilefit.model.lmem import LmemAllocator

Runner = Callable[["Prepared", "LmemAllocator"], "Attempt"]


def lmem_bytes(capture: Capture) -> int:
    """The LMEM TPU-MLIR's allocator is given: the capture's one range, from address 0."""
    return capture.memory.ranges[0].end


def _tpumlir(prepared: Prepared, inputs: LmemAllocator) -> Attempt:
    """``assignLmemAddr`` replayed round by round (``tilefit.engine.lmem.assign``)."""
    from tilefit.engine.attempt import Attempt, Failure
    from tilefit.engine.lmem.assign import assign
    from tilefit.engine.strategy import Replaying

    capture = prepared.capture
    replayed = assign(inputs, lmem_bytes(capture))
    offsets = dict(replayed.placed)
    failure = None
    if replayed.failed:
        lost = replayed.rounds[-1].order[-1]  # the tensor that found no block
        unit = next(u for u in prepared.units if u.id == lost)
        failure = Failure(unit, len(offsets), _holes(prepared, unit.id, offsets))
    return Attempt(
        strategy=Replaying(inputs.name),
        capture=capture.name,
        offsets={r.id: offsets[r.id] for r in capture.requests if r.id in offsets},
        placed=tuple(offsets),
        peak_address=max(
            (offsets[r.id] + r.size for r in capture.requests if r.id in offsets), default=0
        ),
        failure=failure,
    )


def _holes(prepared: Prepared, ident: str, offsets: dict[str, int]) -> tuple[tuple[int, int], ...]:
    """The free address intervals over a request's lifetime, largest first."""
    capture = prepared.capture
    request = capture.request_by_id[ident]
    blocks = list(prepared.constraints.outside[ident])
    blocks += [
        (offsets[r.id], offsets[r.id] + r.size)
        for r in capture.requests
        if r.id in offsets and r.lives_with(request)
    ]
    return tuple(sorted(free(sorted(blocks)), key=lambda h: (h[0] - h[1], h[0])))


ALLOCATORS: dict[str, Runner] = {NAME: _tpumlir}
"""Each production allocator replayed whole, by the name ``production`` and
``allocator.name`` give it."""


def run_allocator(prepared: Prepared, replaying: Replaying) -> Attempt:
    """The allocator's own attempt on the capture, from its ``allocator`` inputs."""
    inputs = prepared.capture.allocator
    if inputs is None or inputs.name != replaying.name:  # the loader refuses such a capture
        raise ValueError(f"production {replaying.name!r} needs the capture's allocator inputs")
    return ALLOCATORS[replaying.name](prepared, inputs)
