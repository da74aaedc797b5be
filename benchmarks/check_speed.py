"""How fast the checker and the bounds are on a 100,000-request capture.

Run with ``.venv/bin/python benchmarks/check_speed.py``. The capture is built in
memory (no loading) so that only ``check``, ``bound`` and ``live_profile`` are
timed. It has every constraint kind: class-restricted and interleaved ranges,
alignments, memory elements, two-member sequences and conflict edges.

A valid placement comes by construction: memory is cut into 64-byte lanes and
each lane holds a chain of requests one after another in time. Two broken
placements follow: 1% of the requests moved to random aligned addresses, and
every request at address 0 (tens of millions of overlapping pairs, counted
exactly, the first 1,000 listed).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

from tilefit.bounds.deficit import bound, live_profile
from tilefit.model.capture import Capture, Conflict, Memory, Range, Request, Sequence
from tilefit.model.placement import Placement
from tilefit.verdicts.check import check

LANES = 1000
LANE = 64  # bytes
PER_LANE = 100
ELEMENT = 4096
HOST = (40960, 49152)  # scratch only
INTERLEAVED = 49152

T = TypeVar("T")


def build(seed: int = 1) -> tuple[Capture, dict[str, int]]:
    rng = random.Random(seed)
    requests: list[Request] = []
    sequences: list[Sequence] = []
    offsets: dict[str, int] = {}
    horizon = 0
    for lane in range(LANES):
        base = lane * LANE
        if HOST[0] <= base < HOST[1]:
            cls, interleaved = "scratch", False
        elif base >= INTERLEAVED:
            cls, interleaved = "activation", True
        else:
            cls, interleaved = rng.choice(("resident", "activation")), False
        step = 0
        for k in range(PER_LANE):
            start, step = step, step + rng.randint(1, 2000)
            ident = f"L{lane}.{k}"
            if cls == "resident" and k % 10 == 0:
                # A two-member sequence filling the lane.
                members = (f"{ident}a", f"{ident}b")
                for m, at in zip(members, (base, base + 32), strict=True):
                    requests.append(Request(m, 32, start, step, 8, cls, interleaved))
                    offsets[m] = at
                sequences.append(Sequence(ident, members))
            else:
                size = 8 * rng.randint(1, LANE // 8)
                requests.append(Request(ident, size, start, step, 8, cls, interleaved))
                offsets[ident] = base
        horizon = max(horizon, step)
    # Conflict edges only between lanes in different memory elements.
    conflicts = []
    per_element = ELEMENT // LANE
    while len(conflicts) < 2000:
        a, b = rng.randrange(LANES), rng.randrange(LANES)
        if a // per_element != b // per_element:
            k = rng.randrange(1, PER_LANE)
            if k % 10:
                conflicts.append(Conflict(f"L{a}.{k}", f"L{b}.{k}"))
    memory = Memory(
        size=LANES * LANE,
        ranges=(
            Range(0, HOST[0], "main"),
            Range(*HOST, "host", ("scratch",)),
            Range(HOST[1], LANES * LANE, "wide"),
        ),
        elements=tuple(range(0, LANES * LANE, ELEMENT)),
        interleaved_offset=INTERLEAVED,
    )
    ids = {r.id for r in requests}
    conflicts = [c for c in conflicts if c.a in ids and c.b in ids]
    capture = Capture("speed", horizon, memory, tuple(requests), tuple(sequences), tuple(conflicts))
    return capture, offsets


def timed(what: str, run: Callable[[], T]) -> T:
    start = time.perf_counter()
    result = run()
    print(f"{what:<34} {time.perf_counter() - start:6.2f} s")
    return result


def main() -> None:
    capture, offsets = build()
    print(
        f"capture: {len(capture.requests)} requests, {len(capture.sequences)} sequences, "
        f"{len(capture.conflicts)} conflicts, horizon {capture.horizon}, "
        f"memory {capture.memory.size} B"
    )
    valid = timed("check, valid placement", lambda: check(capture, Placement("speed", offsets)))
    print(f"  valid: {valid.valid}")

    rng = random.Random(2)
    broken = dict(offsets)
    for ident in rng.sample(sorted(broken), len(broken) // 100):
        broken[ident] = 8 * rng.randrange(LANES * LANE // 8)
    invalid = timed("check, 1% of requests moved", lambda: check(capture, Placement("s", broken)))
    counts = ", ".join(
        f"{invalid.count(k)} {k}" for k in dict.fromkeys(v.kind for v in invalid.violations)
    )
    print(f"  valid: {invalid.valid}; {counts}")

    pile = {ident: 0 for ident in offsets}
    piled = timed("check, every request at 0", lambda: check(capture, Placement("p", pile)))
    print(
        f"  valid: {piled.valid}; {piled.count('overlap')} overlapping pairs, "
        f"{piled.overlaps_not_listed} of them not listed"
    )

    report = timed("bound", lambda: bound(capture))
    print(
        f"  lower bound {report.lower_bound} B at step {report.peak_step} of "
        f"{report.available} B available; support deficit {report.support_deficit} B"
    )
    profile = timed("live_profile", lambda: live_profile(capture))
    print(f"  {len(profile.segments)} segments over {len(profile.classes)} classes")


if __name__ == "__main__":
    main()
