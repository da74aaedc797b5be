"""Small captures for the plot, report and browser tests, made here rather than read."""

from __future__ import annotations

from tilefit.capture import Capture, Conflict, Memory, Range, Request, Sequence


def fragmented() -> Capture:
    """Production fails on ``big`` (40 B) where long-lived-first fits: fragmentation.

    Memory: [0, 16) unavailable, variables [16, 136), a scratch-only host
    aperture [136, 152), [152, 168) unavailable; elements of 64 B; interleaved
    from 128.
    """
    memory = Memory(
        size=168,
        ranges=(Range(16, 136, "variables"), Range(136, 152, "host aperture", ("scratch",))),
        elements=(0, 64, 128),
        interleaved_offset=128,
    )
    requests = (
        Request("stage", 32, 1, 3, alignment=8, cls="scratch", label="layer0/stage"),
        Request("partial", 32, 2, 4, alignment=8, cls="activation", label="layer0/partial"),
        Request("big", 40, 3, 4, cls="output", label="layer1/out_proj"),
        Request("w.q", 24, 0, 4, alignment=4, cls="resident", label="layer0/q"),
        Request("w.k", 12, 0, 4, alignment=4, cls="resident", label="layer0/k"),
        Request("tmp", 16, 0, 1, alignment=8, cls="scratch", label="tmp"),
        Request("x", 8, 0, 1, cls="activation", interleaved=True, label="layer0/x"),
    )
    return Capture(
        name="frag",
        horizon=4,
        memory=memory,
        requests=requests,
        sequences=(Sequence("w", ("w.q", "w.k"), "layer0 qk"),),
        conflicts=(Conflict("w", "x"), Conflict("stage", "x")),
        observed_failed="big",
        tile=3,
    )


def over_capacity() -> Capture:
    """Three requests live at step 1 need 112 B of a 96 B memory: a capacity deficit."""
    memory = Memory(size=128, ranges=(Range(32, 128, "variables"),), elements=(0, 64))
    requests = (
        Request("a", 48, 0, 2, cls="resident", label="weights <a> & co"),
        Request("b", 40, 1, 3, cls="activation"),
        Request("c", 24, 1, 2, cls="scratch"),
    )
    return Capture(name="over", horizon=3, memory=memory, requests=requests)
