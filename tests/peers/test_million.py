"""benchmarks/million.py's inputs and its measuring: the training-step trace (seeded, its
saved activations freed in reverse), the real traces tiled end to end (on traces made
here; the shared ones are not needed) and a process measured whole."""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import numpy as np
from checkout import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

from million_traces import tiled_real, training_graph
from peers.measured import run_measured


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_the_training_step_is_seeded_and_has_every_buffer_asked() -> None:
    text = training_graph(5_000, seed=3)
    assert text == training_graph(5_000, seed=3)
    assert text != training_graph(5_000, seed=4)
    rows = _rows(text)
    assert len(rows) == 5_000 and len({r["id"] for r in rows}) == 5_000
    assert all(int(r["lower"]) < int(r["upper"]) for r in rows)
    assert all(int(r["size"]) % 64 == 0 for r in rows)


def test_the_saved_activations_live_until_the_backward_pass_frees_them_in_reverse() -> None:
    rows = _rows(training_graph(10_000))
    saved = [(int(r["lower"]), int(r["upper"])) for r in rows if r["id"].startswith("a")]
    assert len(saved) == 10_000 // 5
    saved.sort()
    uppers = [upper for _, upper in saved]
    assert uppers == sorted(uppers, reverse=True)  # made later, freed sooner
    turn = max(lower for lower, _ in saved)
    starts = np.array([int(r["lower"]) for r in rows])
    ends = np.array([int(r["upper"]) for r in rows])
    alive = int(np.count_nonzero((starts <= turn) & (ends > turn)))
    assert alive >= len(saved)  # every saved activation at once, weights beside them


def test_real_traces_are_tiled_end_to_end_until_the_count(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("id,lower,upper,size\n0,0,3,8\n1,2,5,16\n")
    (tmp_path / "b.csv").write_text("id,lower,upper,size,offset\nx,1,4,32,0\n")
    rows = _rows(tiled_real(tmp_path, 7) or "")
    assert [r["id"] for r in rows] == [
        "a.0.0",
        "a.0.1",
        "b.0.x",
        "a.1.0",
        "a.1.1",
        "b.1.x",
        "a.2.0",
    ]
    spans = [(int(r["lower"]), int(r["upper"])) for r in rows]
    assert spans == [(0, 3), (2, 5), (6, 9), (9, 12), (11, 14), (15, 18), (18, 21)]
    assert "offset" not in rows[0]  # IREE's plan is no one's input
    assert tiled_real(tmp_path / "absent", 7) is None


def test_a_process_is_measured_whole_and_killed_at_its_timeout() -> None:
    grow = "x = bytearray(200 * 1024 * 1024); print(len(x))"
    done = run_measured([sys.executable, "-c", grow], timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == str(200 * 1024 * 1024)
    assert done.max_rss >= 200 * 1024 * 1024
    assert done.cpu > 0 and done.wall > 0
    stuck = run_measured([sys.executable, "-c", "import time; time.sleep(600)"], timeout=0.5)
    assert stuck.returncode is None


def test_a_capped_process_fails_instead_of_taking_the_memory() -> None:
    grow = "x = bytearray(2 * 1024 ** 3)"
    done = run_measured([sys.executable, "-c", grow], timeout=600, memory_cap=1024**3)
    assert done.returncode not in (0, None)
    assert "MemoryError" in done.stderr
