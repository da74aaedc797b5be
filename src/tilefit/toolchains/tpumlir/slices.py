"""How TPU-MLIR cuts a layer group's work: its slices along each dimension."""

from __future__ import annotations

from dataclasses import dataclass

from tilefit.model.errors import InputError


@dataclass(frozen=True, slots=True)
class Slices:
    """``shape_secs``: the slices along batch, channels, depth, height and width."""

    n: int
    c: int
    d: int
    h: int
    w: int

    @property
    def total(self) -> int:
        return self.n * self.c * self.d * self.h * self.w

    @property
    def one_loop(self) -> bool:
        """One slice in all: TPU-MLIR then holds nothing in LMEM across slices."""
        return self.total == 1

    def __str__(self) -> str:
        return f"{self.n},{self.c},{self.d},{self.h},{self.w}"

    @property
    def tag(self) -> str:
        """``1x1x1x2x1``: the slices in a name that is also a file's (no space, no comma)."""
        return f"{self.n}x{self.c}x{self.d}x{self.h}x{self.w}"

    @staticmethod
    def parse(text: str, place: str) -> Slices:
        """``n,c,d,h,w`` as TPU-MLIR's trace prints ``shape_secs``."""
        parts = text.split(",")
        if len(parts) != 5 or not all(p.strip().isdigit() for p in parts):
            raise InputError(place, f"shape_secs {text!r} is not five counts n,c,d,h,w")
        n, c, d, h, w = (int(p) for p in parts)
        if min(n, c, d, h, w) < 1:
            raise InputError(place, f"shape_secs {text!r} has a count below 1")
        return Slices(n, c, d, h, w)
