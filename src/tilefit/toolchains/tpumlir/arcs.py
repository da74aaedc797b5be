"""Lifetimes on TPU-MLIR's circle of timesteps.

A layer group runs its slices software-pipelined over T timesteps: the timestep table
repeats, so a tensor's lifetime is an arc on a circle of T steps, from its first
timestep to its last, both inclusive, and it may wrap (``start > end``: from ``start``
to T - 1, then from 0 to ``end``). A tensor held in LMEM for the whole group
(``hold_in_lmem``: weights loaded once) is live at every timestep.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Arc:
    """``[start, end]`` on a circle of ``period`` timesteps (inclusive; may wrap)."""

    start: int
    end: int
    period: int
    held: bool = False  # live at every timestep, whatever start and end say

    @property
    def wraps(self) -> bool:
        return self.start > self.end

    @property
    def length(self) -> int:
        """The timesteps it covers (all of them when held)."""
        return self.period if self.held else self.span

    @property
    def span(self) -> int:
        """The timesteps from start to end, held or not."""
        if self.wraps:
            return self.end + 1 + self.period - self.start
        return self.end - self.start + 1

    def steps(self) -> frozenset[int]:
        if self.held:
            return frozenset(range(self.period))
        return frozenset((self.start + i) % self.period for i in range(self.length))

    def meets(self, other: Arc) -> bool:
        """Whether the two arcs share a timestep (TPU-MLIR's ``is_timestep_overlapped``
        for two unheld arcs: two wrapping arcs always meet, both covering T - 1 ... 0)."""
        if self.held or other.held:
            return True
        if not self.wraps and not other.wraps:
            return self.start <= other.end and other.start <= self.end
        if self.wraps and other.wraps:
            return True
        straight, wrapping = (other, self) if self.wraps else (self, other)
        return straight.start <= wrapping.end or wrapping.start <= straight.end

    def __str__(self) -> str:
        text = f"{self.start}->{self.end}"
        return f"{text} (held)" if self.held else text
