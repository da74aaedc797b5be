"""A final.mlir of another model beside a trace is refused; batch over TPU-MLIR runs says,
per model, its failed attempts decided and the slices fragmentation cost."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
from checkout import ROOT

from tilefit.cli import main
from tilefit.model.errors import InputError
from tilefit.output.schema import output_schema
from tilefit.toolchains import read

RECORDED = ROOT / "examples" / "tpumlir"


def _one_line(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["import", "tpumlir", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


def test_a_final_mlir_of_another_model_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "conv_c16_s128_bm1684x"
    for suffix in (".lmem_assign.log", "_tpu_opt.mlir"):
        shutil.copy(RECORDED / f"{name}{suffix}", tmp_path / f"{name}{suffix}")
    final = tmp_path / f"{name}_final.mlir"
    final.write_text((RECORDED / f"{name}_final.mlir").read_text())
    # its own plan: read, the trace's 2 attempts and its one group as built
    assert len(read("tpumlir", [str(final)]).imported) == 3
    final.write_text((RECORDED / "conv_c32_s112_bm1688_final.mlir").read_text())
    err = _one_line(capsys, str(final))
    assert "a plan of another model: it is conv_c32_s112 for bm1688" in err
    with pytest.raises(InputError, match="another model"):
        read("tpumlir", [str(tmp_path)])  # found in a folder too


def test_a_final_mlir_named_beside_another_models_trace_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    final = RECORDED / "conv_c16_s128_bm1684x_final.mlir"
    other = RECORDED / "conv_c32_s112_bm1688.lmem_assign.log"
    err = _one_line(capsys, str(final), str(other))
    assert "the plan of conv_c16_s128_bm1684x handed beside the trace of another model" in err
    same = RECORDED / "conv_c16_s128_bm1684x.lmem_assign.log"
    assert len(read("tpumlir", [str(final), str(same)]).imported) == 3  # and its group


def test_batch_says_per_model_its_failed_attempts_decided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    for model in ("conv_c32_s112_bm1684x", "conv_c16_s128_bm1684x"):
        for path in RECORDED.glob(f"{model}*"):
            shutil.copy(path, folder / path.name)
    main(["batch", str(folder), "--db", str(tmp_path / "rows.db")])
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if "_bm1684x " in line}
    # attempts, failed, fragmentation, capacity, undecided, slices fragmentation cost
    assert rows["conv_c32_s112_bm1684x"] == ["2", "1", "1", "0", "0", "+1"]
    assert rows["conv_c16_s128_bm1684x"] == ["2", "1", "0", "1", "0", "-"]
    main(["batch", "--summary", str(tmp_path / "rows.db"), "--json"])
    summary = json.loads(capsys.readouterr().out)
    jsonschema.validate(summary, output_schema("batch"))
    by_model = {m["model"]: m for m in summary["tpumlir_models"]}
    assert by_model["conv_c32_s112_bm1684x"]["fragmentation"] == 1
    assert by_model["conv_c32_s112_bm1684x"]["slices_cost"] == 1
    assert by_model["conv_c16_s128_bm1684x"]["capacity"] == 1
    (folder / "conv_c32_s112_bm1684x.lmem_assign.log").unlink()  # read again: gone
    main(["batch", "--summary", str(tmp_path / "rows.db")])
    said = capsys.readouterr().out
    assert "conv_c32_s112_bm1684x.lmem_assign.log: not read again (" in said, said
