"""Short XLA dump excerpts written for the tests, in XLA's own text formats.

One toy module: a parameter, a live-out output, and a temp allocation whose
values show each rule of the import (docs/xla.md): ``b`` is written in place
over ``a``, which dies at b's step (one buffer, one request); ``c`` and ``e``
meet at step 5 at different offsets (both live there); ``e`` reuses b's bytes
after a gap (two requests); ``t{}`` is a tuple's table of pointers, in an
allocation of its own for the whole program whatever its range.
"""

from __future__ import annotations

from pathlib import Path

STEM = "module_0001.jit_toy.cpu_after_optimizations"

ASSIGNMENT = """BufferAssignment:
allocation 0: size 256, parameter 0, shape |f32[64]| at ShapeIndex {}:
 value: <0 p0 @0> (size=256,offset=0): f32[64]{0}
allocation 1: size 256, output shape is |(f32[64], f32[64])|, maybe-live-out:
 value: <7 out @0> (size=256,offset=0): f32[64]{0}
allocation 2: size 528, preallocated-temp:
 value: <1 a @0> (size=256,offset=0): f32[64]{0}
 value: <2 b @0> (size=256,offset=0): f32[64]{0}
 value: <3 c @0> (size=256,offset=256): f32[64]{0}
 value: <4 t{} @0> (size=16,offset=512): (f32[64]{0}, f32[64]{0})
 value: <5 e @0> (size=128,offset=0): f32[32]{0}
 value: <6 d @0> (size=200,offset=256): f32[50]{0}
"""

LIVE_RANGE = """HloLiveRange (max 7):
  InstructionSequence:
    0:p0
    1:a
    2:b
    3:c
    4:t
    5:e
    6:d
  BufferLiveRange:
    p0{}:0-7
    a{}:1-2
    b{}:2-4
    c{}:3-5
    t{}:4-6
    e{}:5-6
    d{}:6-6
    out{}:6-7
  Live ranges at 5 (peak):
    p0{}: 256 bytes (cumulative: 256 bytes)
"""


def write_dump(
    folder: Path,
    assignment: str = ASSIGNMENT,
    live_range: str | None = LIVE_RANGE,
    stem: str = STEM,
) -> Path:
    """The toy module's files in ``folder``; returns its buffer-assignment file."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}-buffer-assignment.txt"
    path.write_text(assignment)
    if live_range is not None:
        (folder / f"{stem}-live-range.txt").write_text(live_range)
    return path
