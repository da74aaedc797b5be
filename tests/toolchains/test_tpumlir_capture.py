"""TPU-MLIR's attempts as cyclic captures: TPU-MLIR's own plans pass tilefit's referee
on them, a broken plan does not, banks become conflict edges when asked."""

from __future__ import annotations

from checkout import ROOT

from tilefit.formats.load import capture_from_json
from tilefit.formats.save import capture_to_json
from tilefit.model.capture import Capture
from tilefit.model.placement import Placement
from tilefit.toolchains.tpumlir.attempt import Attempt
from tilefit.toolchains.tpumlir.capture import capture_of, placement_of
from tilefit.toolchains.tpumlir.graph import read_graph
from tilefit.toolchains.tpumlir.problem import problem_of
from tilefit.toolchains.tpumlir.trace import read_trace
from tilefit.verdicts.check import check

RECORDED = ROOT / "examples" / "tpumlir"
RUNS = sorted(p.name.removesuffix(".lmem_assign.log") for p in RECORDED.glob("*.lmem_assign.log"))


def _captures(banks: bool = False) -> list[tuple[str, Attempt, Capture]]:
    found = []
    for name in RUNS:
        graph = read_graph(RECORDED / f"{name}_tpu_opt.mlir")
        for attempt in read_trace(RECORDED / f"{name}.lmem_assign.log"):
            problem = problem_of(attempt, graph)
            assert problem is not None
            found.append((name, attempt, capture_of(attempt, problem, name, banks=banks)))
    return found


def test_tpu_mlir_plans_pass_the_referee_and_a_broken_one_fails() -> None:
    checked = 0
    for _, attempt, capture in _captures():
        placement = placement_of(attempt, capture)
        if placement is None:
            continue
        assert check(capture, placement).valid
        # the largest tensor moved onto another live with it: the referee objects
        requests = sorted(capture.requests, key=lambda r: -r.size)
        big = requests[0]
        other = next(r for r in requests[1:] if r.lives_with(big))
        broken = Placement(
            placement.capture, {**placement.offsets, big.id: placement.offsets[other.id]}
        )
        assert not check(capture, broken).valid
        checked += 1
    assert checked >= 3


def test_captures_are_cyclic_and_round_trip_through_json() -> None:
    for _, attempt, capture in _captures():
        assert capture.period == capture.horizon == attempt.period
        assert capture_from_json(capture_to_json(capture)) == capture
    wrapping = [c for _, _, c in _captures() if c.wraps]
    assert wrapping  # the pipelined groups' tensors live across the circle's end


def test_a_failed_attempt_names_the_tensor_it_had_no_block_for() -> None:
    failed = [(a, c) for _, a, c in _captures() if not a.success]
    assert failed
    for attempt, capture in failed:
        assert capture.observed_failed == attempt.rounds[-1][-1].name
        assert placement_of(attempt, capture) is None


def test_banks_as_conflict_edges_are_what_tpu_mlir_broke() -> None:
    by_name = {(n, a.index): (a, c) for n, a, c in _captures(banks=True)}
    attempt, capture = by_name[("dw_c64_s112_bm1688", 1)]
    placement = placement_of(attempt, capture)
    assert placement is not None and capture.conflicts
    kinds = {v.kind for v in check(capture, placement).violations}
    assert kinds == {"conflict"}  # its plan took bank conflicts, nothing else
