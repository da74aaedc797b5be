"""How fast a 100,000-request capture loads (and is written back).

Run with ``.venv/bin/python benchmarks/load_speed.py``. The capture is made
here (IPU-like classes, alignments, sequences and conflicts), written to a
temporary file, then read with ``tilefit.formats.load.read_capture``, which parses the
JSON and enforces every rule of the format. Target: under 2 s.
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from tilefit.formats.load import read_capture
from tilefit.formats.save import write_capture
from tilefit.model.capture import Capture, Conflict, Memory, Range, Request, Sequence

REQUESTS = 100_000


def make(n: int, seed: int = 1) -> Capture:
    rng = random.Random(seed)
    horizon = n // 10
    requests = []
    for k in range(n):
        start = rng.randrange(horizon)
        cls = rng.choice(("resident", "activation", "scratch", "output"))
        requests.append(
            Request(
                id=f"r{k}",
                size=32 * rng.randint(1, 128),
                start=start,
                end=min(horizon, start + rng.randint(1, 50)),
                alignment=32 if cls == "scratch" else 8,
                cls=cls,
                interleaved=rng.random() < 0.1,
                label=f"layer{k % 48}/{cls}",
            )
        )
    sequences = tuple(
        Sequence(f"seq{j}", (f"r{2 * j}", f"r{2 * j + 1}"), "Repeat x2") for j in range(n // 100)
    )
    conflicts = tuple(Conflict(f"seq{j}", f"r{n - 1 - j}") for j in range(n // 100))
    memory = Memory(
        size=1 << 26,
        ranges=(Range(0, 1 << 25, "main"), Range(1 << 25, 1 << 26, "aperture", ("scratch",))),
        elements=tuple(range(0, 1 << 26, 1 << 20)),
        interleaved_offset=1 << 25,
    )
    return Capture("load-speed", horizon, memory, tuple(requests), sequences, conflicts)


def main() -> None:
    capture = make(REQUESTS)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.json"
        started = time.perf_counter()
        write_capture(capture, path)
        wrote = time.perf_counter() - started
        started = time.perf_counter()
        again = read_capture(path)
        read = time.perf_counter() - started
        size = path.stat().st_size
    assert again == capture
    print(f"capture: {REQUESTS} requests, {len(capture.sequences)} sequences, {size / 1e6:.1f} MB")
    print(f"write   {wrote:6.2f} s")
    print(f"load    {read:6.2f} s   (target: under 2 s)")


if __name__ == "__main__":
    main()
