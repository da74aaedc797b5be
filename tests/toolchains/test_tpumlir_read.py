"""TPU-MLIR's files read without TPU-MLIR: the allocator's trace and the final.mlir plan
(recorded by benchmarks/tpumlir_models.py --record into examples/tpumlir/)."""

from __future__ import annotations

from pathlib import Path

import pytest
from checkout import ROOT

from tilefit.model.errors import InputError
from tilefit.toolchains.tpumlir.arcs import Arc
from tilefit.toolchains.tpumlir.final import groups, read_final
from tilefit.toolchains.tpumlir.live import busiest, live_bytes
from tilefit.toolchains.tpumlir.slices import Slices
from tilefit.toolchains.tpumlir.trace import attempts, read_trace

RECORDED = ROOT / "examples" / "tpumlir"
TRACE = RECORDED / "conv_c16_s128_bm1684x.lmem_assign.log"
FINAL = RECORDED / "conv_c16_s128_bm1684x_final.mlir"


def test_trace_attempts_as_tpu_mlir_printed_them() -> None:
    first, second = read_trace(TRACE)
    assert first.chip.lmem_bytes == 262_144 and first.chip.banks == 16
    assert (first.chip.bank_bytes, first.chip.eu_bytes, first.chip.lanes) == (16_384, 64, 64)
    assert first.slices == Slices(1, 1, 1, 1, 1) and not first.success
    assert [t.name for t in first.placed] == ["add9_Add", "relu4_Relu", "relu8_Relu", "relu13_Relu"]
    assert [t.addr for t in first.placed] == [0, 65_536, 131_072, 196_608]
    assert [(t.name, t.addr) for t in first.failed] == [("w10", -1), ("b11", -1)]
    assert first.lmem_used == 262_144 and first.period == 2
    assert first.placed[1].arc == Arc(1, 0, 2) and first.placed[1].arc.wraps
    # the second attempt: two slices along the height, every tensor placed
    assert second.slices == Slices(1, 1, 1, 2, 1) and second.success and not second.failed
    assert second.group.key == (2, 3) and [op.name for op in second.group.ops] == [
        "add9_Add",
        "relu13_Relu",
    ]


def test_trace_candidates_follow_each_round() -> None:
    first = read_trace(TRACE)[0]
    assert len(first.rounds) == len(first.placed) + 1  # the last round failed
    assert [c.name for c in first.rounds[0]] == ["add9_Add"]  # the first round places at 0
    last = first.rounds[-1]
    assert [(c.name, c.addr) for c in last] == [("w10", -1)]


def test_held_tensors_live_everywhere() -> None:
    second = read_trace(TRACE)[1]
    held = [t for t in second.tensors if t.arc.held]
    assert {t.name for t in held} == {"w10", "b11"}
    assert all(t.arc.steps() == frozenset(range(second.period)) for t in held)


def _cut(text: str, predicate: str) -> str:
    lines = text.splitlines()
    stop = next(i for i, line in enumerate(lines) if predicate in line)
    return "\n".join(lines[:stop]) + "\n"


def _edited(path: Path, marker: str, old: str, new: str) -> tuple[str, int]:
    """The file with ``old`` made ``new`` on the first line holding ``marker``, and that
    line's number."""
    lines = path.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if marker in line)
    lines[at] = lines[at].replace(old, new, 1)
    return "\n".join(lines), at + 1


def test_a_trace_cut_short_names_the_attempt_it_ends_in() -> None:
    text = _cut(TRACE.read_text(), "step = assignLmemAddr_finish")
    with pytest.raises(InputError) as caught:
        attempts(text)
    assert caught.value.place.startswith("line ")
    assert "cut short" in caught.value.rule


def test_a_malformed_tensor_line_names_its_line_and_rule() -> None:
    text, line = _edited(TRACE, "status = success", "size = ", "bytes = ")
    with pytest.raises(InputError) as caught:
        attempts(text)
    assert caught.value.place == f"line {line}"
    assert caught.value.rule == "no size on this line"


def test_a_file_without_attempts_is_refused() -> None:
    with pytest.raises(InputError, match="no allocation attempt"):
        attempts(FINAL.read_text())


def test_final_groups_ops_and_arcs() -> None:
    (group,) = read_final(FINAL)
    assert group.slices == Slices(1, 1, 1, 1, 1) and group.stages == 3
    assert group.period == len(group.timesteps) == 5
    tensors = {t.name: t for t in group.tensors()}
    # a Load's tensor carries the name of what it loads, as the trace does
    assert {"input", "w1", "b2", "relu4_Relu", "conv16_Conv"} <= set(tensors)
    assert tensors["input"].arc.wraps  # loaded in stage 0, read in stage 1 one turn later
    store = next(op for op in group.ops if op.is_store)
    stored = next(op for op in group.ops if op.value == store.operands[0])
    assert store.out_addr == stored.out_addr


def test_a_store_that_disagrees_with_its_tensor_is_refused() -> None:
    text, line = _edited(FINAL, '"tpu.Store"', "out_addr = ", "out_addr = 1")
    with pytest.raises(InputError) as caught:
        groups(text)
    assert caught.value.place == f"line {line}"
    assert "tpu.Store" in caught.value.rule


def test_a_final_mlir_cut_inside_a_group_is_refused() -> None:
    text = _cut(FINAL.read_text(), '"tpu.Yield"')
    with pytest.raises(InputError, match="never closes"):
        groups(text)


def test_arcs_meet_as_tpu_mlir_decides() -> None:
    assert Arc(2, 0, 3).meets(Arc(0, 1, 3))  # a wrapping arc and a straight one
    assert not Arc(0, 0, 3).meets(Arc(1, 2, 3))
    assert Arc(2, 0, 4).meets(Arc(3, 1, 4))  # two wrapping arcs share T - 1 and 0
    assert Arc(1, 1, 4, held=True).meets(Arc(3, 3, 4))
    assert Arc(3, 1, 4).length == 3 and Arc(3, 1, 4).steps() == frozenset({3, 0, 1})


def test_live_bytes_per_timestep_count_aligned_ends_and_held_tensors() -> None:
    first, second = read_trace(TRACE)
    # four 64 KiB tensors live at both timesteps, w10 (576 B) and b11 (4 B, 64 aligned)
    assert live_bytes(first) == (262_144 + 576 + 64,) * 2
    assert busiest(first) > first.chip.lmem_bytes  # short of memory at a timestep
    assert busiest(second) <= second.chip.lmem_bytes


def test_a_malformed_timestep_row_or_shape_secs_names_its_line() -> None:
    text, line = _edited(TRACE, "; ts = 1;", "; ts = 1;", "; ts = 3;")
    with pytest.raises(InputError) as caught:
        attempts(text)
    assert (caught.value.place, caught.value.rule) == (
        f"line {line}",
        "timestep 3 where 1 comes next",
    )
    text, line = _edited(TRACE, "shape_secs = 1,1,1,1,1", "1,1,1,1,1", "1,1,0")
    with pytest.raises(InputError) as caught:
        attempts(text)
    assert caught.value.place == f"line {line}"
    assert "five counts" in caught.value.rule


def test_final_group_table_as_the_trace_prints_one() -> None:
    (group,) = read_final(FINAL)
    rows = [
        ([layer.name for layer in row.layers], [(m.store, m.name) for m in row.transfers])
        for row in group.table()
    ]
    assert rows == [
        (["relu4_Relu"], [(False, "w5"), (False, "b6"), (True, "conv16_Conv")]),
        (["relu8_Relu"], []),
        (["add9_Add"], [(False, "w10"), (False, "b11")]),
        (["relu13_Relu"], [(False, "w14"), (False, "b15")]),
        (["conv16_Conv"], [(False, "input"), (False, "w1"), (False, "b2")]),
    ]
