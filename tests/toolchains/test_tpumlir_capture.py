"""TPU-MLIR's attempts as cyclic captures: TPU-MLIR's own plans pass tilefit's referee
on them, a broken plan does not, banks become conflict edges when asked."""

from __future__ import annotations

from dataclasses import replace

from checkout import ROOT

from tilefit.formats.load import capture_from_json
from tilefit.formats.save import capture_to_json
from tilefit.model.capture import Capture, Request
from tilefit.model.lmem import Arc, Tensor
from tilefit.model.placement import Placement
from tilefit.toolchains.tpumlir.attempt import Attempt
from tilefit.toolchains.tpumlir.capture import capture_of, in_place_ends, placement_of
from tilefit.toolchains.tpumlir.graph import Graph, Node, read_graph
from tilefit.toolchains.tpumlir.problem import Problem, problem_of
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


def _in_place_run(in_place: bool = True) -> tuple[Attempt, Problem, Capture]:
    # conv_c24_s160 on bm1684x2, a kept-back model: add9 = Add(relu4, relu8) at timestep
    # 0, where relu4's arc (2->0) ends and add9's (0->1) begins; TPU-MLIR's plan puts
    # add9 in relu4's slot by in-place reuse (in_place=False: no op may write in place)
    name = "conv_c24_s160_bm1684x2"
    graph = read_graph(RECORDED / f"{name}_tpu_opt.mlir")
    if not in_place:
        graph = Graph({k: Node(n.kind, n.name, n.reads, False) for k, n in graph.nodes.items()})
    (attempt,) = read_trace(RECORDED / f"{name}.lmem_assign.log")
    problem = problem_of(attempt, graph)
    assert problem is not None
    return attempt, problem, capture_of(attempt, problem, name)


def test_an_in_place_pair_shares_its_slot_and_nothing_more() -> None:
    attempt, _, capture = _in_place_run()
    requests = {r.id: r for r in capture.requests}
    relu4, add9, relu8 = requests["relu4_Relu"], requests["add9_Add"], requests["relu8_Relu"]
    assert (relu4.start, relu4.end, add9.start, add9.end) == (2, 3, 0, 2)
    assert not relu4.lives_with(add9)  # the slot changes hands at the Add's timestep
    assert relu4.lives_with(relu8)  # both loaded at timestep 2, read by the Add at 0
    placement = placement_of(attempt, capture)
    assert placement is not None
    assert placement.offsets["add9_Add"] == placement.offsets["relu4_Relu"]
    assert check(capture, placement).valid
    # a tensor live with the input moved onto its slot: still refused
    for other in ("relu8_Relu", "conv16_Conv"):
        moved = {**placement.offsets, other: placement.offsets["relu4_Relu"]}
        kinds = {v.kind for v in check(capture, replace(placement, offsets=moved)).violations}
        assert "overlap" in kinds


def test_without_in_place_reuse_tpu_mlir_plan_fails_the_referee() -> None:
    attempt, _, capture = _in_place_run(in_place=False)
    placement = placement_of(attempt, capture)
    assert placement is not None
    violations = check(capture, placement).violations
    assert [(v.kind, set(v.ids)) for v in violations] == [("overlap", {"relu4_Relu", "add9_Add"})]


def test_an_input_another_tensor_meets_at_the_op_alone_stays_whole() -> None:
    # a tensor live at the Add's timestep alone would lose its separation from relu4
    # were relu4 cut there: relu4 keeps its whole lifetime, [2, 1) on the circle
    _, problem, capture = _in_place_run()
    whole = _in_place_run(in_place=False)[2].requests
    assert in_place_ends(problem, whole) == capture.requests  # relu4 cut, as the import does
    inputs = problem.allocator
    brief = Tensor("brief", 64, Arc(0, 0, inputs.period))
    with_brief = replace(problem, allocator=replace(inputs, tensors=(*inputs.tensors, brief)))
    extra = Request("brief", 64, 0, 1, alignment=whole[0].alignment)
    kept = {r.id: r for r in in_place_ends(with_brief, (*whole, extra))}
    assert (kept["relu4_Relu"].start, kept["relu4_Relu"].end) == (2, 1)
