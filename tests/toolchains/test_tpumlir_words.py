"""A TPU-MLIR attempt decided in TPU-MLIR's words: the import writes the group, the slices
tried and those the group ended with into the capture's origin; diagnose names them, the
tensors (a wrap as ``timesteps 2..0 (wraps)``) and a fragmentation's placement, in hex too.
The recorded run conv_c32_s112_bm1684x (made by benchmarks/tpumlir_models.py) holds a real
fragmentation: TPU-MLIR found no block, yet the nine tensors fit."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from checkout import ROOT

from tilefit.cli import main
from tilefit.formats.save import capture_text
from tilefit.model.capture import Request
from tilefit.output.schema import output_schema
from tilefit.toolchains import read
from tilefit.toolchains.tpumlir.outcome import ended_slices
from tilefit.toolchains.tpumlir.slices import Slices
from tilefit.toolchains.tpumlir.telling import hex_address, timesteps_text, told_lines
from tilefit.toolchains.tpumlir.trace import read_trace
from tilefit.toolchains.tpumlir.words import cut_text, group_words
from tilefit.verdicts.check import check
from tilefit.verdicts.diagnose import diagnose

RECORDED = ROOT / "examples" / "tpumlir"
FRAGMENTED = RECORDED / "conv_c32_s112_bm1684x.lmem_assign.log"


def test_the_origin_names_the_group_its_slices_and_what_it_ended_with() -> None:
    first, second = read(
        "tpumlir", [str(RECORDED / "conv_c16_s128_bm1684x.lmem_assign.log")]
    ).imported
    failed, placed = group_words(first.capture), group_words(second.capture)
    assert failed is not None and placed is not None
    assert failed.ops == ("add9_Add", "relu13_Relu")
    assert failed.tried == Slices(1, 1, 1, 1, 1) and failed.ended == Slices(1, 1, 1, 2, 1)
    assert failed.cost == 1 and not failed.given_up
    assert placed.tried == Slices(1, 1, 1, 2, 1) and placed.ended is None
    assert cut_text(placed.tried) == "slices 1,1,1,2,1 (h, the height, cut in 2)"


def test_a_group_no_later_attempt_placed_ended_with_none() -> None:
    attempts = read_trace(FRAGMENTED)
    assert ended_slices(attempts) == (Slices(1, 1, 1, 2, 1), Slices(1, 1, 1, 2, 1))
    assert ended_slices(attempts[:1]) == (None,)  # the success cut away: given up


def test_timesteps_as_tpu_mlir_gives_them() -> None:
    wrapping = Request("t", 64, start=2, end=1)
    assert timesteps_text(wrapping, 3) == "timesteps 2..0 (wraps)"
    assert timesteps_text(Request("t", 64, start=0, end=2), 3) == "timesteps 0..1"
    assert timesteps_text(Request("t", 64, start=0, end=3), 3) == "timesteps 0..2 (every timestep)"
    assert hex_address(65_536) == "0x00010000"


def test_an_in_place_input_is_told_as_traced_and_its_slot_handed_on() -> None:
    # conv_c32_s112 on bm1688, attempt 9: relu4 (2->0) is the Add's in-place input, its
    # lifetime in the capture ends at timestep 0 where add9's begins
    capture = read("tpumlir", [str(RECORDED / "conv_c32_s112_bm1688.lmem_assign.log")])
    first = capture.imported[0].capture
    relu4 = next(r for r in first.requests if r.id == "relu4_Relu")
    assert (relu4.start, relu4.end) == (2, 3)
    answer = diagnose(first, time_limit=10, workers=1)
    told = next(line for line in told_lines(first, answer) if "relu4_Relu " in line)
    assert "timesteps 2..0 (wraps)" in told
    assert told.endswith("(add9_Add takes its slot in place at timestep 0)")
    relu8 = next(line for line in told_lines(first, answer) if "relu8_Relu " in line)
    assert "in place" not in relu8


def test_a_real_fragmentation_is_decided_with_a_refereed_placement() -> None:
    failed = read("tpumlir", [str(FRAGMENTED)]).imported[0]
    capture = failed.capture
    assert capture.observed_failed == "relu8_Relu"
    assert not check(capture, failed.placement).valid  # TPU-MLIR left five tensors out
    answer = diagnose(capture, time_limit=10, workers=1)
    assert answer.verdict.places and answer.placement is not None
    assert set(answer.placement.offsets) == {r.id for r in capture.requests}
    assert check(capture, answer.placement).valid  # within the chip's 262,144 B of LMEM
    assert capture.memory.size == 262_144


def _diagnosed(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    capture = read("tpumlir", [str(FRAGMENTED)]).imported[0].capture
    path = tmp_path / "attempt.json"
    path.write_text(capture_text(capture))
    assert main(["diagnose", str(path), *extra]) == 0
    return capsys.readouterr().out


def test_diagnose_says_it_in_tpu_mlir_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _diagnosed(tmp_path, capsys)
    assert "layer group (3 ops): add9_Add, relu13_Relu, conv16_Conv" in out
    assert "slices 1,1,1,1,1 (nothing cut) tried" in out
    assert "the group ended with slices 1,1,1,2,1 (1 slice more than tried)" in out
    assert "fragmentation: TPU-MLIR found no block for relu8_Relu" in out
    relu4 = next(line for line in out.splitlines() if line.strip().startswith("relu4_Relu "))
    assert "timesteps 2..0 (wraps)" in relu4 and "(0x000" in relu4


def test_diagnose_json_carries_the_same_facts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = json.loads(_diagnosed(tmp_path, capsys, "--json"))
    jsonschema.validate(out, output_schema("diagnose"))
    told = out["tpumlir"]
    assert told["group"] == ["add9_Add", "relu13_Relu", "conv16_Conv"]
    assert (told["slices"], told["cut"], told["ended"]) == ("1,1,1,1,1", {}, "1,1,1,2,1")
    assert told["slices_cost"] == 1 and told["fragmentation"] and told["failed"]
    offsets = out["placement"]["offsets"]
    for tensor in told["tensors"]:
        assert tensor["offset"] == offsets[tensor["tensor"]]
        assert tensor["hex"] == f"0x{offsets[tensor['tensor']]:08x}"
    relu4 = next(t for t in told["tensors"] if t["tensor"] == "relu4_Relu")
    assert relu4["timesteps"] == {"start": 2, "end": 0, "wraps": True, "every": False}


def test_a_capture_not_from_tpu_mlir_has_no_such_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = read("tpumlir", [str(FRAGMENTED)]).imported[0].capture
    path = tmp_path / "plain.json"
    path.write_text(capture_text(replace(capture, origin=None)))
    main(["diagnose", str(path), "--json"])
    assert json.loads(capsys.readouterr().out)["tpumlir"] is None


def test_a_placed_attempt_shows_no_placement_it_lacked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    placed = read("tpumlir", [str(FRAGMENTED)]).imported[1].capture
    path = tmp_path / "placed.json"
    path.write_text(capture_text(placed))
    main(["diagnose", str(path), "--json"])
    out = json.loads(capsys.readouterr().out)
    told = out["tpumlir"]
    assert out["placement"] is not None  # tilefit's own plan, not one TPU-MLIR lacked
    assert not told["failed"] and not told["fragmentation"] and told["ended"] is None
    assert told["cut"] == {"h": 2}
    assert {t["offset"] for t in told["tensors"]} == {None}


def test_only_a_layer_group_as_built_is_offered_for_export() -> None:
    # A trace's attempt is a grouping TPU-MLIR tried, not one its model runs: the two-part
    # answer offers no export of it. A group of the _final.mlir (NAME.groupK) is what
    # export takes, and its answer names the command.
    from tilefit.output.headline import diagnosis_headline

    trace = RECORDED / "conv_c32_s112_bm1684x.lmem_assign.log"
    attempt = next(i.capture for i in read("tpumlir", [str(trace)]).imported)
    told = diagnosis_headline(diagnose(attempt, time_limit=30, workers=1))
    assert told is not None and told.adopt is None
    assert "TPU-MLIR takes no plan back" in " ".join(told.lines())
    final = RECORDED / "conv_c32_s112_bm1684x_final.mlir"
    groups = [
        i.capture for i in read("tpumlir", [str(final)]).imported if ".group" in i.capture.name
    ]
    assert groups, "the final.mlir gives its groups"
    group = diagnosis_headline(diagnose(groups[0], time_limit=30, workers=1))
    assert group is not None and group.adopt is not None
    assert "tilefit export tpumlir" in group.adopt


def test_diagnose_knows_a_tpu_mlir_capture_by_the_name_the_import_gives() -> None:
    # diagnose loads the toolchain only for a capture whose origin names TPU-MLIR
    # (tests/cli/test_startup.py): the name it looks for is the one written here.
    from tilefit.cli.diagnose import TPUMLIR
    from tilefit.toolchains.tpumlir.words import TOOL

    assert TPUMLIR == TOOL
