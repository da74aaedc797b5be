"""Small captures for the plot, report and browser tests, made here rather than read."""

from __future__ import annotations

from dataclasses import replace

from tilefit.bounds.deficit import bound
from tilefit.engine.attempt import Attempt, Failure
from tilefit.engine.strategy import STRATEGIES
from tilefit.model.capture import Capture, Conflict, Memory, Range, Request, Sequence
from tilefit.model.units import units
from tilefit.plot.layout import attempt_map
from tilefit.plot.series import profile_series
from tilefit.report.content import MapView, ReportContent
from tilefit.verdicts.diagnose import Diagnosis
from tilefit.verdicts.verdict import Verdict


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


def big_content(count: int) -> ReportContent:
    """A long capture with long ids and labels, and made-up attempts (rendering trusts them)."""
    horizon = 2000
    size = 638_976
    requests = tuple(
        Request(
            f"layer{k // 20:04d}/tensor{k:05d}",
            64 + (k * 7919) % 6000,
            k * horizon // count,
            min(horizon, k * horizon // count + 1 + k % 40),
            alignment=8,
            cls=("resident", "activation", "scratch", "output")[k % 4],
            label=f"model/block{k // 100}/op{k % 100}/output_projection_fp16",
        )
        for k in range(count)
    )
    capture = Capture("big", horizon, Memory(size, (Range(4096, size),)), requests)
    offsets = {r.id: 4096 + (k * 104_729) % (size - 4096 - r.size) for k, r in enumerate(requests)}
    last = units(capture)[-1]
    del offsets[last.id]
    holes = tuple((4096 + 4096 * j, 4096 + 4096 * j + 64) for j in range(50))
    attempt = Attempt(STRATEGIES[0], "big", offsets, (), size, Failure(last, count - 1, holes))
    report = bound(capture)
    diagnosis = Diagnosis(
        verdict=Verdict.UNDETERMINED,
        capture="big",
        tile=None,
        bound=report,
        production=(attempt,),
        reproduced=None,
    )
    fits = replace(attempt, failure=None)
    return ReportContent(
        capture=capture,
        diagnosis=diagnosis,
        matrix=tuple(replace(attempt, strategy=s) for s in STRATEGIES),
        maps=(
            MapView("m0", "Production failure", "", attempt_map(capture, attempt)),
            MapView("m1", "Placement found", "", attempt_map(capture, fits)),
        ),
        series=profile_series(capture, report),
    )
