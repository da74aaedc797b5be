"""tilefit export tpumlir without TPU-MLIR: each group of a recorded ``*_final.mlir`` a
capture with TPU-MLIR's plan refereed; a plan written into the text reads back as given;
a plan the referee rejects, of another group, or past the LMEM is refused, exit 2, before
any TPU-MLIR tool runs (a stand-in venv notes each tool it is asked to run)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from checkout import ROOT

from tilefit.cli import main
from tilefit.formats.save import write_placement
from tilefit.model.errors import InputError
from tilefit.model.placement import Placement, placement_top
from tilefit.toolchains.base import ExportOptions
from tilefit.toolchains.replan import replan, replan_preferring
from tilefit.toolchains.tpumlir import TOOLCHAIN
from tilefit.toolchains.tpumlir.final import read_final
from tilefit.toolchains.tpumlir.plans import GroupPlan, ModelPlans, read_plans
from tilefit.toolchains.tpumlir.reconcile import reconciled
from tilefit.toolchains.tpumlir.rewrite import with_addresses
from tilefit.toolchains.tpumlir.tools import VENV_VARIABLE
from tilefit.verdicts.check import check

RECORDED = ROOT / "examples" / "tpumlir"
FINALS = sorted(RECORDED.glob("*_final.mlir"))
MODEL = "conv_c32_s112_bm1688"  # two groups


def mirrored(plan: GroupPlan) -> Placement:
    """TPU-MLIR's plan turned upside down inside its own top: every tensor moves, none
    meets another it did not meet (ends and sizes are EU-aligned, so addresses stay so)."""
    top = placement_top(plan.capture, plan.own.offsets)
    size = {r.id: r.size for r in plan.capture.requests}
    return Placement(plan.capture.name, {t: top - a - size[t] for t, a in plan.own.offsets.items()})


def overlapping(plan: GroupPlan) -> Placement:
    """TPU-MLIR's plan with the output of its first op that computes (a Conv2D) written
    over that op's first input: the two meet, and the chip then reads what it overwrites."""
    by_value = {op.value: op for op in plan.group.ops if op.value is not None}
    op = next(o for o in plan.group.ops if o.kind == "tpu.Conv2D")
    source = by_value[op.operands[0]]
    offsets = plan.own.offsets
    return Placement(plan.capture.name, {**offsets, op.name: offsets[source.name]})


@pytest.mark.parametrize("final", FINALS, ids=lambda p: p.name)
def test_each_group_is_a_capture_and_tpu_mlir_s_plan_passes(final: Path) -> None:
    model = read_plans(final)
    assert model.groups and model.chip.lmem_bytes in (131_072, 262_144)
    for plan in model.groups:
        capture = plan.capture
        assert capture.period == capture.horizon == plan.group.period
        assert check(capture, plan.own).valid
        assert {r.cls for r in capture.requests} <= {"activation", "weight", "scratch"}
        assert not check(capture, overlapping(plan)).valid
        assert plan.broken(plan.own) <= len(plan.pairs)


@pytest.mark.parametrize("final", FINALS, ids=lambda p: p.name)
def test_a_plan_written_reads_back_as_given(final: Path, tmp_path: Path) -> None:
    model = read_plans(final)
    text = final.read_text()
    for plan in model.groups:
        new = mirrored(plan)
        assert new.offsets != plan.own.offsets and check(plan.capture, new).valid
        edited = with_addresses(text, model, {plan.group.index: new})
        # read_final checks every Store repeats its tensor's address: it follows the tensor
        again = read_final(_saved(edited, tmp_path / final.name))
        for group in again:
            expected = new if group.index == plan.group.index else model.groups[group.index].own
            assert {t.name: t.addr for t in group.tensors()} == dict(expected.offsets)
        changed = [a for a, b in zip(text.splitlines(), edited.splitlines(), strict=True) if a != b]
        assert changed and all("ginfo" in line for line in changed)


def _saved(text: str, path: Path) -> Path:
    path.write_text(text)
    return path


def test_a_scratch_buffer_moves_with_buffer_addr(tmp_path: Path) -> None:
    final = RECORDED / "dw_c64_s112_bm1688_final.mlir"
    model = read_plans(final)
    (plan,) = model.groups
    scratch = [r.id for r in plan.capture.requests if r.cls == "scratch"]
    assert scratch  # the depthwise net's ops have buffers
    edited = with_addresses(final.read_text(), model, {0: mirrored(plan)})
    (group,) = read_final(_saved(edited, tmp_path / final.name))
    moved = {t.name: t.addr for t in group.tensors() if t.scratch}
    assert moved == {s: mirrored(plan).offsets[s] for s in scratch}


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A venv whose tools only note that they ran (and then fail)."""
    bin_ = tmp_path / "venv" / "bin"
    bin_.mkdir(parents=True)
    for name in ("python", "tpuc-opt", "model_deploy", "model_runner"):
        tool = bin_ / name
        tool.write_text(f'#!/bin/sh\necho {name} >> "{tmp_path / "ran"}"\nexit 1\n')
        tool.chmod(0o755)
    monkeypatch.setenv(VENV_VARIABLE, str(tmp_path / "venv"))
    return tmp_path


def _model(folder: Path) -> tuple[Path, ModelPlans]:
    """The recorded model copied beside a weight file, as model_deploy leaves it."""
    final = folder / f"{MODEL}_final.mlir"
    text = (RECORDED / final.name).read_text()
    final.write_text(text)
    (folder / "conv_c32_s112_tpu_addressed_bm1688_f32_weight.npz").write_bytes(b"")
    return final, read_plans(final)


def _export(final: Path, placement: Placement, folder: Path) -> int:
    given = folder / "plan.json"
    write_placement(placement, str(given))
    return main(["export", "tpumlir", str(final), str(given), "-o", str(folder / "out.bmodel")])


def test_an_overlapping_plan_is_refused_before_any_tool_runs(
    stand_in: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    final, model = _model(stand_in)
    assert _export(final, overlapping(model.groups[1]), stand_in) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "the referee rejects it" in err and "overlap" in err
    assert not (stand_in / "ran").exists()
    # the same stand-in runs (and fails, exit 2) once the plan is one the referee accepts
    assert _export(final, mirrored(model.groups[1]), stand_in) == 2
    assert (stand_in / "ran").read_text().split() == ["tpuc-opt"]
    assert "tpuc-opt failed" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("edit", "rule"),
    [
        (lambda p: Placement("conv_c32_s112_bm1688.group7", p.offsets), "not a group of"),
        (lambda p: Placement(p.capture, {**p.offsets, "nobody": 0}), "does not plan"),
        (lambda p: Placement(p.capture, {**p.offsets, "w10": 131_072}), "past the chip's LMEM"),
    ],
    ids=["another-group", "unknown-tensor", "past-lmem"],
)
def test_a_plan_of_another_group_or_past_the_lmem_is_refused(
    stand_in: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Callable[[Placement], Placement],
    rule: str,
) -> None:
    final, model = _model(stand_in)
    assert _export(final, edit(model.groups[1].own), stand_in) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and rule in err, err
    assert not (stand_in / "ran").exists()


def test_no_venv_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(VENV_VARIABLE, raising=False)
    final, model = _model(tmp_path)
    assert _export(final, mirrored(model.groups[0]), tmp_path) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and VENV_VARIABLE in err, err
    with pytest.raises(InputError, match="not a TPU-MLIR venv"):
        assert TOOLCHAIN.export is not None
        TOOLCHAIN.export(final, [mirrored(model.groups[0])], ExportOptions(venv=str(tmp_path)))


def test_replan_without_a_venv_is_one_line_before_any_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(VENV_VARIABLE, raising=False)
    final, _ = _model(tmp_path)
    argv = ["replan", "tpumlir", str(final), "-o", str(tmp_path / "out.bmodel")]
    assert main([*argv, "--tpumlir-venv", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not a TPU-MLIR venv" in err, err
    assert not (tmp_path / "out.bmodel").exists()


def test_replan_keeps_the_bank_pairs_tpu_mlir_s_plan_keeps_where_that_goes_lower() -> None:
    plan = read_plans(RECORDED / f"{MODEL}_final.mlir").groups[1]
    assert plan.imported.preferred is not None
    preferring = replan_preferring(plan.imported.preferred, plan.capture, plan.own, 5)
    plain = replan(plan.capture, plan.own, 5)
    assert preferring.placement is not None and plain.placement is not None
    assert check(plan.capture, preferring.placement).valid
    assert preferring.top is not None and preferring.top < plan.heap
    assert plan.broken(preferring.placement) <= plan.broken(plan.own)
    # the least of every plan breaks more: the preference chose, at some LMEM's cost
    assert plan.broken(plain.placement) > plan.broken(plan.own)
    assert plain.top is not None and plain.top < preferring.top
    assert not preferring.proven  # the least keeping the pairs, not of every plan


def test_a_sliced_group_holds_its_weights_all_round_the_circle() -> None:
    """TPU-MLIR loads a weight once where a group runs several slices (hold_coeff): a
    plan putting another tensor on it between its uses computes wrong numbers on the
    chip (seen on dw_c64_s112 for bm1684x before this rule)."""
    sliced = read_plans(RECORDED / "dw_c64_s112_bm1688_final.mlir").groups[0]
    assert sliced.group.slices.total > 1
    weights = [r for r in sliced.capture.requests if r.cls == "weight"]
    assert weights and all((r.start, r.end) == (0, sliced.capture.period) for r in weights)
    whole = read_plans(RECORDED / "conv_c16_s128_bm1684x_final.mlir").groups[0]
    assert whole.group.slices.total == 1  # one slice: each weight lives its own arc
    assert any(
        (r.start, r.end) != (0, whole.capture.period)
        for r in whole.capture.requests
        if r.cls == "weight"
    )


def _overlapped(folder: Path) -> tuple[Path, ModelPlans]:
    """The two-group model with its second group's first weight Load moved up into the
    first group's timestep 2, as TPU-MLIR overlaps groups (conv_c16_s128 on bm1688)."""
    final, _ = _model(folder)
    lines = final.read_text().splitlines(keepends=True)
    closing = [i for i, line in enumerate(lines) if "other_up_overlap_op = []" in line]
    first, second = closing
    lines[first] = lines[first].replace("other_up_overlap_op = []", "other_up_overlap_op = [-3, 1]")
    lines[second] = lines[second].replace("self_up_overlap_op = []", "self_up_overlap_op = [1]")
    final.write_text("".join(lines))
    return final, read_plans(final)


def test_a_tensor_loaded_while_the_previous_group_runs_may_not_share_its_bytes(
    stand_in: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    final, model = _overlapped(stand_in)
    second = model.groups[1]
    w10 = second.capture.request_by_id["w10"]
    assert (w10.start, w10.end) == (0, second.capture.period)  # there before its timestep
    # where TPU-MLIR put it (51,072), the first group's relu4 holds the bytes at timestep 2
    assert any("w10" in c and "relu4_Relu" in c for c in model.clashes({}))
    moved = Placement(second.capture.name, {**second.own.offsets, "w10": 125_184})
    assert check(second.capture, moved).valid and model.clashes({1: moved}) == []
    assert reconciled(final, [model.groups[0].own, moved]) == [model.groups[0].own, moved]
    # replan's plans made to agree: the tied tensor moved to the lowest address free of
    # its group and of the first group's tensors at timestep 2 (here 125,184)
    assert reconciled(final, [model.groups[0].own, second.own]) == [model.groups[0].own, moved]
    assert _export(final, second.own, stand_in) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "TPU-MLIR overlaps the two groups" in err, err
    assert not (stand_in / "ran").exists()
    assert _export(final, moved, stand_in) == 2  # accepted: the stand-in tool then fails
    assert (stand_in / "ran").read_text().split() == ["tpuc-opt"]
