"""TPU-MLIR's own tools driven by tilefit: a model of the benchmark's compiled for a chip,
the allocator's trace made, read and replayed; a plan of tilefit's exported into it and
both bmodels run on the chip's simulator (and an overlapping one, forced past the
referee, computing other outputs). These need TPU-MLIR's venv (Python 3.10,
bash .ci/tpumlir makes it) named by TILEFIT_TPUMLIR_VENV and skip without it; the venv
checks below run everywhere."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from checkout import ROOT
from test_tpumlir_export import mirrored, overlapping

from tilefit.cli import main
from tilefit.formats.load import read_placement
from tilefit.formats.save import write_placement
from tilefit.model.errors import InputError
from tilefit.model.placement import placement_top
from tilefit.toolchains import read
from tilefit.toolchains.tpumlir import pipeline
from tilefit.toolchains.tpumlir.agreement import differences
from tilefit.toolchains.tpumlir.final import read_final
from tilefit.toolchains.tpumlir.graph import read_graph
from tilefit.toolchains.tpumlir.plans import read_plans
from tilefit.toolchains.tpumlir.problem import problem_of
from tilefit.toolchains.tpumlir.replay import replay
from tilefit.toolchains.tpumlir.rewrite import with_addresses
from tilefit.toolchains.tpumlir.simulate import codegen, seeded_inputs, simulate, weights_of
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


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> pipeline.Deployed:
    """conv_c16_s128 compiled for bm1684x by TPU-MLIR's own tools, once for these tests."""
    venv = find_venv(GIVEN)
    folder = tmp_path_factory.mktemp("tpumlir")
    model = "conv_c16_s128"
    onnx = folder / f"{model}.onnx"
    run(venv, ["python", str(ROOT / "benchmarks" / "tpumlir_onnx.py"), model, onnx.name], folder)
    mlir = pipeline.transform(venv, folder, model, onnx, [1, 16, 128, 128])
    return pipeline.deploy(venv, mlir, model, "bm1684x")


@needs_tpumlir
def test_a_model_compiled_traced_read_and_replayed(deployed: pipeline.Deployed) -> None:
    venv = find_venv(GIVEN)
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


@needs_tpumlir
def test_a_changed_refereed_plan_exported_runs_bit_identically(
    deployed: pipeline.Deployed, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (plan,) = read_plans(deployed.final).groups
    new = mirrored(plan)
    assert new.offsets != plan.own.offsets
    given, out = tmp_path / "plan.json", tmp_path / "out.bmodel"
    write_placement(new, str(given))
    assert main(["export", "tpumlir", str(deployed.final), str(given), "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert "outputs over 1 invocation: identical, bit for bit" in said, said
    assert out.read_bytes()[:4] != b"" and "bank pairs broken" in said


@needs_tpumlir
def test_an_overlapping_plan_forced_past_the_referee_changes_the_outputs(
    deployed: pipeline.Deployed, tmp_path: Path
) -> None:
    """The comparison can fail: the writer called directly, past the referee, with a
    conv's output over its own input; codegen accepts it and the chip computes wrong."""
    venv = find_venv(GIVEN)
    model = read_plans(deployed.final)
    (plan,) = model.groups
    bad = overlapping(plan)
    assert not check(plan.capture, bad).valid
    text = deployed.final.read_text()
    weights = weights_of(deployed.final, text)
    (tmp_path / weights.name).symlink_to(weights)
    inputs = seeded_inputs(text, tmp_path)
    own = simulate(venv, codegen(venv, text, tmp_path, "own"), inputs, tmp_path)
    edited = with_addresses(text, model, {0: bad})
    wrong = simulate(venv, codegen(venv, edited, tmp_path, "bad"), inputs, tmp_path)
    assert own.varies and not own.same(wrong)


@needs_tpumlir
def test_replan_writes_a_lower_plan_that_runs_bit_identically(
    deployed: pipeline.Deployed, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, placement = tmp_path / "out.bmodel", tmp_path / "least.json"
    argv = ["replan", "tpumlir", str(deployed.final), "-o", str(out), "--time-limit", "3"]
    assert main([*argv, "--placement", str(placement)]) == 0
    said = capsys.readouterr().out
    assert "identical, bit for bit" in said and out.is_file(), said
    (plan,) = read_plans(deployed.final).groups
    least = read_placement(str(placement))
    assert check(plan.capture, least).valid
    assert placement_top(plan.capture, least.offsets) < placement_top(
        plan.capture, plan.own.offsets
    )
