"""tilefit import tpumlir: every attempt of a recorded trace a cyclic capture, failed ones
included; TPU-MLIR's own plans pass the referee; banks said; a trace cut short refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from checkout import ROOT

from tilefit.cli import main
from tilefit.model.errors import InputError
from tilefit.toolchains import read
from tilefit.toolchains.base import ImportOptions
from tilefit.verdicts.check import check

RECORDED = ROOT / "examples" / "tpumlir"


def test_every_attempt_of_a_folder_is_a_cyclic_capture() -> None:
    reading = read("tpumlir", [str(RECORDED)])
    failed = [i for i in reading.imported if "FAILED" in i.notes[0]]
    placed = [i for i in reading.imported if "FAILED" not in i.notes[0]]
    assert failed and placed
    for item in reading.imported:
        assert item.capture.period == item.capture.horizon
        assert any(n.startswith("banks, a preference") for n in item.notes)
    for item in placed:
        assert check(item.capture, item.placement).valid
        assert "its plan keeps them all" in item.notes[1] or "its plan breaks" in item.notes[1]
    broken = [i.capture.name for i in placed if "its plan breaks" in i.notes[1]]
    assert broken == [  # their bank conflicts
        "conv_c24_s160_bm1684x2.attempt0.slices1x1x1x2x2",
        "dw_c64_s112_bm1688.attempt1.slices1x1x1x4x1",
    ]
    for item in failed:
        assert not check(item.capture, item.placement).valid  # its unplaced tensors
        origin = item.capture.origin
        assert origin is not None and origin.heap > item.capture.memory.size  # did not fit


def test_a_trace_cut_short_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = RECORDED / "conv_c16_s128_bm1684x.lmem_assign.log"
    lines = trace.read_text().splitlines()
    finish = next(i for i, line in enumerate(lines) if "assignLmemAddr_finish" in line)
    cut = tmp_path / "cut.lmem_assign.log"
    cut.write_text("\n".join(lines[:finish]) + "\n")  # inside the first attempt
    with pytest.raises(InputError, match="cut short"):
        read("tpumlir", [str(cut)])
    assert main(["import", "tpumlir", str(cut)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "cut short" in err, err


def test_a_model_file_stands_for_the_trace_beside_it(tmp_path: Path) -> None:
    name = "conv_c16_s128_bm1684x"
    by_trace = read("tpumlir", [str(RECORDED / f"{name}.lmem_assign.log")])
    by_opt = read("tpumlir", [str(RECORDED / f"{name}_tpu_opt.mlir")])
    by_final = read("tpumlir", [str(RECORDED / f"{name}_final.mlir")])
    attempts = [i.capture for i in by_trace.imported]
    assert [i.capture for i in by_opt.imported] == attempts
    # the plan named gives its groups as built too, after the trace's attempts
    groups = [i.capture.name for i in by_final.imported[len(attempts) :]]
    assert [i.capture for i in by_final.imported[: len(attempts)]] == attempts
    assert groups == [f"{name}.group0"]
    alone = tmp_path / f"{name}_final.mlir"
    alone.write_text((RECORDED / f"{name}_final.mlir").read_text())
    assert [i.capture.name for i in read("tpumlir", [str(alone)]).imported] == groups
    opt = tmp_path / f"{name}_tpu_opt.mlir"
    opt.write_text((RECORDED / opt.name).read_text())
    with pytest.raises(InputError, match=r"lmem_assign\.log beside it"):
        read("tpumlir", [str(opt)])


def test_batch_over_a_folder_decides_every_failed_attempt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    failed = sum("FAILED" in i.notes[0] for i in read("tpumlir", [str(RECORDED)]).imported)
    main(["batch", str(RECORDED), "--db", str(tmp_path / "rows.db")])
    out = capsys.readouterr().out
    # every attempt TPU-MLIR failed is decided; on these recorded runs each a capacity
    # deficit but one, conv_c32_s112_bm1684x's fragmentation (test_tpumlir_words)
    assert re.search(rf"^capacity\s+{failed - 1}$", out, re.MULTILINE), out
    assert "undetermined" not in out


def test_capacity_asks_about_another_lmem() -> None:
    trace = str(RECORDED / "conv_c16_s128_bm1684x.lmem_assign.log")
    reading = read("tpumlir", [trace], ImportOptions(capacity=400_000))
    assert {i.capture.memory.size for i in reading.imported} == {400_000}
    with pytest.raises(InputError, match="EU bytes"):
        read("tpumlir", [trace], ImportOptions(alignment=32))
