"""benchmarks/real_traces.py's own arithmetic: the live bound of a trace, a peer's output
turned into a refereed tilefit placement, best-fit-decreasing, and the lines that say
where tilefit loses (on traces made here; the real ones are not needed)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
from checkout import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

from peers.bfd import _best_gap, best_fit_decreasing
from peers.traces import Answer, Trace, offsets_from_csv, read_trace, refereed
from real_traces import losses

# MiniMalloc's own example: live bytes 12 over [0, 9), 8 over [9, 21); sizes add up to 20.
TRACE = "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n"
# MiniMalloc's answer to it at capacity 12, as its command line writes it.
SOLVED = (
    "id,lower,upper,size,offset\nb1,0,3,4,8\nb2,3,9,4,8\nb3,0,9,4,4\nb4,9,21,4,4\nb5,0,21,4,0\n"
)


def _trace(tmp_path: Path) -> Trace:
    path = tmp_path / "example.csv"
    path.write_text(TRACE, encoding="utf-8")
    return read_trace(path)


def test_a_trace_is_read_with_its_live_bound_in_a_memory_of_all_its_sizes(
    tmp_path: Path,
) -> None:
    trace = _trace(tmp_path)
    assert (trace.name, trace.bound, trace.capacity) == ("example", 12, 20)
    assert len(trace.capture.requests) == 5


def test_a_peers_output_becomes_a_placement_the_referee_accepts(tmp_path: Path) -> None:
    trace = _trace(tmp_path)
    offsets = offsets_from_csv(SOLVED)
    assert offsets == {"b1": 8, "b2": 8, "b3": 4, "b4": 4, "b5": 0}
    answer = refereed(trace, "MiniMalloc", offsets, 0.1, proven=True)
    assert (answer.peak, answer.valid, answer.proven) == (12, True, True)


def test_a_broken_output_is_rejected_and_never_proven(tmp_path: Path) -> None:
    trace = _trace(tmp_path)
    overlapping = offsets_from_csv(SOLVED.replace("b2,3,9,4,8", "b2,3,9,4,4"))
    answer = refereed(trace, "MiniMalloc", overlapping, 0.1, proven=True)
    assert (answer.peak, answer.valid, answer.proven) == (12, False, False)
    assert "overlap" in answer.note and "b2" in answer.note
    missing = {k: v for k, v in offsets_from_csv(SOLVED).items() if k != "b5"}
    assert refereed(trace, "idealloc", missing, 0.1).valid is False
    higher = refereed(trace, "x", {**offsets_from_csv(SOLVED), "b5": 16}, 0.1)
    assert (higher.peak, higher.valid) == (20, True)


def test_best_fit_takes_the_smallest_gap_that_fits_else_the_top() -> None:
    lows, highs = np.array([16, 8]), np.array([20, 12])  # gaps [0, 8) and [12, 16)
    assert _best_gap(lows, highs, 4) == 12
    assert _best_gap(lows, highs, 5) == 0
    assert _best_gap(lows, highs, 9) == 20
    assert _best_gap(np.array([], dtype=np.int64), np.array([], dtype=np.int64), 9) == 0


def test_best_fit_decreasing_places_the_example_at_its_bound(tmp_path: Path) -> None:
    trace = _trace(tmp_path)
    offsets = best_fit_decreasing(trace.capture)
    assert offsets == {"b5": 0, "b4": 4, "b3": 4, "b2": 8, "b1": 8}
    answer = refereed(trace, "bfd", offsets, 0.0)
    assert (answer.peak, answer.valid) == (12, True)


def test_the_record_says_where_tilefit_loses(tmp_path: Path) -> None:
    trace = _trace(tmp_path)
    ours = Answer("tilefit", 12, 3.0, proven=True, valid=True)
    peer = Answer("omnimalloc", 12, 0.5, valid=True, note="greedy_by_size")
    assert losses([(trace, [ours, peer])], 20.0) == [
        "tilefit loses nowhere: at or below every peer, within its limit"
    ]
    above = replace(ours, peak=14, proven=False)
    assert losses([(trace, [above, peer])], 20.0) == [
        "example: tilefit +16.6667%: not at the bound, where a peer is "
        "(omnimalloc greedy_by_size, 0.5 s)"
    ]
    assert losses([(trace, [above, replace(peer, peak=13)])], 20.0) == [
        "example: tilefit +7.6923% above the best peer (omnimalloc greedy_by_size, 0.5 s)"
    ]
    assert losses([(trace, [above, replace(peer, peak=14)])], 20.0) == [
        "tilefit loses nowhere: at or below every peer, within its limit"
    ]
    late = replace(ours, seconds=20.7)
    assert losses([(trace, [late, peer])], 20.0) == [
        "example: tilefit ends 0.7 s past its limit of 20 s"
    ]
    minimalloc = Answer("MiniMalloc", 12, 0.2, proven=True, valid=True)
    assert losses([(trace, [ours, minimalloc])], 20.0) == [
        "example: tilefit proves it in 3.0 s; MiniMalloc proves the bound in 0.2 s"
    ]
    rejected = replace(ours, valid=False, note="referee: overlap b1, b2")
    assert losses([(trace, [rejected, peer])], 20.0) == [
        "example: tilefit has no valid placement (referee: overlap b1, b2)"
    ]
