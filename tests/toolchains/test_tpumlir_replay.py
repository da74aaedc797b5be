"""TPU-MLIR's allocator replayed on recorded traces: every round's order and candidates,
every address and every failure as TPU-MLIR's own trace states them, on two chips;
and the comparison fails when the replay leaves out what the allocator does."""

from __future__ import annotations

from dataclasses import replace

import pytest
from checkout import ROOT

from tilefit.toolchains.tpumlir.agreement import differences
from tilefit.toolchains.tpumlir.attempt import Attempt, TensorLine
from tilefit.toolchains.tpumlir.graph import Graph, Node, read_graph
from tilefit.toolchains.tpumlir.problem import Problem, problem_of
from tilefit.toolchains.tpumlir.replay import replay
from tilefit.toolchains.tpumlir.trace import on_table, read_trace

RECORDED = ROOT / "examples" / "tpumlir"
RUNS = sorted(p.name.removesuffix(".lmem_assign.log") for p in RECORDED.glob("*.lmem_assign.log"))


def _run(name: str) -> tuple[tuple[Attempt, ...], Graph]:
    return (
        read_trace(RECORDED / f"{name}.lmem_assign.log"),
        read_graph(RECORDED / f"{name}_tpu_opt.mlir"),
    )


def _problem(attempt: Attempt, graph: Graph) -> Problem:
    problem = problem_of(attempt, graph)
    assert problem is not None
    return problem


def _allowing_bank_conflicts(problem: Problem) -> Problem:
    return replace(problem, allocator=replace(problem.allocator, allow_bank_conflict=True))


def test_recorded_runs_cover_three_chips_and_failures() -> None:
    chips = {(a.chip.lanes, a.chip.lmem_bytes, a.chip.eu_bytes) for n in RUNS for a in _run(n)[0]}
    # bm1684x, bm1688, bm1684x2
    assert chips == {(64, 262_144, 64), (32, 131_072, 16), (16, 262_144, 32)}
    assert sum(not a.success for name in RUNS for a in _run(name)[0]) >= 4


@pytest.mark.parametrize("name", RUNS)
def test_every_recorded_attempt_is_reproduced(name: str) -> None:
    found, graph = _run(name)
    for attempt in found:
        replayed = replay(_problem(attempt, graph))
        assert differences(attempt, replayed) == ()
        assert replayed.placed == tuple((t.name, t.addr) for t in attempt.placed)
        assert replayed.success == attempt.success


def _any_differs(problems: list[tuple[Attempt, Problem]]) -> bool:
    return any(differences(a, replay(p)) for a, p in problems)


def _all_problems() -> list[tuple[Attempt, Problem]]:
    problems = []
    for name in RUNS:
        found, graph = _run(name)
        problems += [(a, _problem(a, graph)) for a in found]
    return problems


def test_without_bank_avoidance_the_replay_departs() -> None:
    problems = _all_problems()
    assert not _any_differs(problems)
    broken = [(a, _allowing_bank_conflicts(p)) for a, p in problems]
    assert _any_differs(broken)


def test_without_end_alignment_the_replay_departs() -> None:
    problems = _all_problems()
    broken = [(a, replace(p, allocator=replace(p.allocator, eu_bytes=1))) for a, p in problems]
    assert _any_differs(broken)


def test_without_in_place_reuse_the_replay_departs() -> None:
    # conv_c32_s112 on bm1688, attempt 9: relu4 takes add9's slot (Add's first input)
    found, graph = _run("conv_c32_s112_bm1688")
    attempt = found[0]
    assert not differences(attempt, replay(_problem(attempt, graph)))
    plain = Graph({k: Node(n.kind, n.name, n.reads, False) for k, n in graph.nodes.items()})
    assert differences(attempt, replay(_problem(attempt, plain)))


def test_a_difference_names_the_round_and_the_tensor() -> None:
    found, graph = _run("conv_c16_s128_bm1684x")
    attempt = found[0]
    broken = replace(_problem(attempt, graph), chip=replace(attempt.chip, lmem_bytes=300_000))
    said = differences(attempt, replay(broken))
    assert said and said[0].startswith("round ")


def test_an_attempt_without_its_table_replays_on_one_given() -> None:
    # as the trace leaves an attempt whose table it never printed: no table, its scratch
    # buffers named by their op's type and timestep only
    found, graph = _run("dw_c64_s112_bm1688")
    attempt = found[1]
    assert attempt.table is not None
    scratch = {
        t.name: f"{t.writer}@{t.arc.start}.buffer"
        for t in attempt.tensors
        if t.kind == "LMEM_OPERATION"
    }
    assert scratch

    def bare(t: TensorLine) -> TensorLine:
        return replace(t, name=scratch.get(t.name, t.name))

    untabled = replace(
        attempt,
        table=None,
        table_line=None,
        placed=tuple(bare(t) for t in attempt.placed),
        failed=tuple(bare(t) for t in attempt.failed),
        rounds=tuple(
            tuple(replace(c, name=scratch.get(c.name, c.name)) for c in r) for r in attempt.rounds
        ),
    )
    assert problem_of(untabled, graph) is None
    given = on_table(untabled, attempt.table)
    assert [t.name for t in given.tensors] == [t.name for t in attempt.tensors]
    assert differences(given, replay(_problem(given, graph))) == ()


def test_bank_conflicts_taken_are_named() -> None:
    # dw_c64_s112 on bm1688, the attempt that placed every tensor: five of them found no
    # block outside the banks they were to avoid and took one inside
    found, graph = _run("dw_c64_s112_bm1688")
    problem = _problem(found[1], graph)
    replayed = replay(problem)
    assert replayed.success
    assert replayed.conflicts == ("relu4_Relu.buffer", "w5", "w1", "b6", "b2")
    assert replay(_allowing_bank_conflicts(problem)).conflicts == ()
