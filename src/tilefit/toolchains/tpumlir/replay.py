"""TPU-MLIR's allocator replayed on an attempt of its trace: the one replay
(``tilefit.engine.lmem.assign``) on what the attempt gives it, in the chip's LMEM."""

from __future__ import annotations

from tilefit.engine.lmem.assign import Replayed, Round
from tilefit.engine.lmem.assign import assign as _assign
from tilefit.toolchains.tpumlir.problem import Problem


def replay(problem: Problem) -> Replayed:
    """Every round of ``assignLmemAddr`` on this attempt."""
    return _assign(problem.allocator, problem.chip.lmem_bytes)


__all__ = ["Replayed", "Round", "replay"]
