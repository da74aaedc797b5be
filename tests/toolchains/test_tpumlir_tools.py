"""TPU-MLIR's own tools driven by tilefit: a model of the benchmark's compiled for a chip,
the allocator's trace made, read and replayed. These need TPU-MLIR's venv (Python 3.10,
bash .ci/tpumlir makes it) named by TILEFIT_TPUMLIR_VENV and skip without it; the venv
checks below run everywhere."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from checkout import ROOT

from tilefit.model.errors import InputError
from tilefit.toolchains import read
from tilefit.toolchains.tpumlir import pipeline
from tilefit.toolchains.tpumlir.agreement import differences
from tilefit.toolchains.tpumlir.final import read_final
from tilefit.toolchains.tpumlir.graph import read_graph
from tilefit.toolchains.tpumlir.problem import problem_of
from tilefit.toolchains.tpumlir.replay import replay
from tilefit.toolchains.tpumlir.tools import VENV_VARIABLE, find_venv, run
from tilefit.toolchains.tpumlir.trace import read_trace
from tilefit.verdicts.check import check
from tilefit.verdicts.diagnose import diagnose

GIVEN = os.environ.get(VENV_VARIABLE)
needs_tpumlir = pytest.mark.skipif(
    not GIVEN or not (Path(GIVEN) / "bin" / "tpuc-opt").exists(),
    reason=f"TPU-MLIR's venv is not installed ({VENV_VARIABLE} unset or empty: bash .ci/tpumlir)",
)


def test_no_venv_named_is_one_clear_error() -> None:
    with pytest.raises(InputError, match=VENV_VARIABLE):
        find_venv(None, env={})


def test_a_folder_that_is_no_tpu_mlir_venv_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").symlink_to(sys.executable)
    with pytest.raises(InputError) as caught:
        find_venv(str(tmp_path))
    assert caught.value.place == str(tmp_path)
    assert "no bin/tpuc-opt" in caught.value.rule


def test_a_tool_that_dies_on_the_bundled_glibc_says_what_to_do(tmp_path: Path) -> None:
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for name in ("python", "tpuc-opt", "model_deploy"):
        tool = bin_ / name
        tool.write_text(
            '#!/bin/sh\necho "/lib/x86_64-linux-gnu/libexpat.so.1: version '
            "\\`GLIBC_2.36' not found\" >&2\nexit 1\n"
        )
        tool.chmod(0o755)
    venv = find_venv(str(tmp_path))
    with pytest.raises(InputError, match="bundled glibc"):
        run(venv, ["tpuc-opt", "--version"], tmp_path)


@needs_tpumlir
def test_a_model_compiled_traced_read_and_replayed(tmp_path: Path) -> None:
    venv = find_venv(GIVEN)
    model = "conv_c16_s128"
    onnx = tmp_path / f"{model}.onnx"
    run(venv, ["python", str(ROOT / "benchmarks" / "tpumlir_onnx.py"), model, onnx.name], tmp_path)
    mlir = pipeline.transform(venv, tmp_path, model, onnx, [1, 16, 128, 128])
    deployed = pipeline.deploy(venv, mlir, model, "bm1684x")
    attempts = read_trace(pipeline.trace(venv, deployed))
    graph = read_graph(deployed.tpu_opt)
    assert any(not a.success for a in attempts)  # 64 KiB tensors: the first tries fail
    for attempt in attempts:
        problem = problem_of(attempt, graph)
        assert problem is not None
        assert differences(attempt, replay(problem)) == ()
    # the plan TPU-MLIR kept is one of the attempts the trace shows
    (group,) = read_final(deployed.final)
    assert any(a.success and a.plan() == group.plan() for a in attempts)
    # every failed attempt decided as diagnose decides it: a refereed placement or a bound
    decided = [
        (item.capture, diagnose(item.capture, time_limit=10, workers=1))
        for item in read("tpumlir", [str(deployed.trace)]).imported
        if item.capture.observed_failed is not None
    ]
    assert len(decided) == sum(not a.success for a in attempts)
    for capture, answer in decided:
        placed = answer.placement is not None and check(capture, answer.placement).valid
        assert placed if answer.verdict.places else answer.capacity is not None
