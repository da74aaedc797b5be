"""Small hand-built captures whose outcomes the engine tests work out by hand."""

from __future__ import annotations

from dataclasses import replace

from tilefit.model.capture import Capture, Memory, Range, Request, Sequence

# lifetime/first-fit puts t at [0,8) and s at [8,12); x (16 B, 16-aligned) then finds
# only [8,24) free, which holds no aligned offset. alignment/first-fit places x at 0
# first, t at [16,24), and s at [0,4), before x comes alive: it fits.
FRAGMENTED = Capture(
    name="fragmented",
    horizon=10,
    memory=Memory(24, (Range(0, 24),)),
    requests=(
        Request("t", 8, 0, 10),
        Request("s", 4, 0, 1),
        Request("x", 16, 1, 10, alignment=16),
    ),
)

# Only one production attempt, which fails: the retry chain has work to do.
LIFETIME_ONLY = replace(FRAGMENTED, name="lifetime-only", production=("lifetime/first-fit",))

# 70 B live in 64 B: nothing fits; both production attempts fail on b.
OVER_CAPACITY = Capture(
    name="over",
    horizon=10,
    memory=Memory(64, (Range(0, 64),)),
    requests=(Request("a", 40, 0, 10), Request("b", 30, 0, 10)),
    observed_failed="b",
)

# Walls a [0,8) and b [16,24) leave two 8-byte holes when the sequence S (two 8-byte
# members) arrives: contiguous it cannot be placed, split it can.
SPLIT_HELPS = Capture(
    name="split-helps",
    horizon=10,
    memory=Memory(32, (Range(0, 32),)),
    requests=(
        Request("a", 8, 0, 10),
        Request("tmp", 8, 0, 1),
        Request("b", 8, 0, 10),
        Request("m1", 8, 2, 10),
        Request("m2", 8, 2, 10),
    ),
    sequences=(Sequence("S", ("m1", "m2")),),
    production=("lifetime/first-fit",),
    observed_failed="m2",
)
