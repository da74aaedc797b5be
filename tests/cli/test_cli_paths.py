"""Issue 50 item 3: every output path is checked before any work, and another tool's file
handed to the wrong command names the command that reads it."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from checkout import ROOT

from tilefit.cli import main

EXAMPLES = ROOT / "examples"

# The files opened while a command runs (an audit hook cannot be removed: it records only
# while a test has set the list).
_OPENED: list[list[str]] = []


def _record(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _OPENED and isinstance(args[0], str | Path):
        _OPENED[-1].append(str(args[0]))


sys.addaudithook(_record)


@pytest.fixture
def opened() -> Iterator[list[str]]:
    files: list[str] = []
    _OPENED.append(files)
    yield files
    _OPENED.remove(files)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copy(EXAMPLES / "0-0.json", tmp_path / "mine.json")
    shutil.copy(EXAMPLES / "tflm" / "streaming.tflite", tmp_path / "model.tflite")
    (tmp_path / "file").write_text("a file, not a folder\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    return err.strip()


# Each: the command line (run in ``folder``), the input its work starts by reading, the
# option refused and the path it names.
MISSING = [
    (["diagnose", "mine.json", "-o", "gone/p.json"], "mine.json", "-o"),
    (["solve", "mine.json", "--minimize", "-o", "gone/p.json"], "mine.json", "-o"),
    (["report", "mine.json", "-o", "gone/r.html"], "mine.json", "-o"),
    (["plot", "mine.json", "-o", "gone/m.png"], "mine.json", "-o"),
    (["whatif", "mine.json", "--drop", "x", "-o", "gone/e.json"], "mine.json", "-o"),
    (["batch", "mine.json", "--db", "gone/r.sqlite"], "mine.json", "--db"),
    (["replan", "tflm", "model.tflite", "-o", "gone/m.tflite"], "model.tflite", "-o"),
    (
        ["replan", "tflm", "model.tflite", "-o", "m.tflite", "--placement", "gone/p.json"],
        "model.tflite",
        "--placement",
    ),
    (["export", "tflm", "model.tflite", "mine.json", "-o", "gone/m.tflite"], "model.tflite", "-o"),
    (["synth", "--tiles", "1", "-o", "gone/one.json"], None, "--output"),
]


@pytest.mark.parametrize(
    ("argv", "input_file", "option"),
    [pytest.param(*case, id=" ".join(case[0])) for case in MISSING],
)
def test_a_missing_output_folder_fails_before_any_work(
    argv: list[str],
    input_file: str | None,
    option: str,
    folder: Path,
    opened: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    # replan iree tx.mlir -o MISSING/x.vmfb worked 17.9 s, then "No such file or directory".
    assert main(argv) == 2
    line = _one_error_line(capsys)
    assert line.startswith(f"tilefit: {option}: gone/"), line
    assert "no folder gone" in line
    if input_file is not None:  # the work starts by reading it: it was never opened
        assert not [f for f in opened if Path(f).name == input_file], opened
    assert sorted(p.name for p in folder.iterdir()) == ["file", "mine.json", "model.tflite"]


@pytest.mark.parametrize(
    ("argv", "rule"),
    [
        (["diagnose", "mine.json", "-o", "file/p.json"], "file is a file, not a folder"),
        (["diagnose", "mine.json", "-o", "."], "is a folder, not a file"),
        (["import", "tflm", "model.tflite", "-o", "file"], "is a file, not a folder"),
        (["import", "tflm", "model.tflite", "-o", "file/deeper"], "file is a file, not a folder"),
        (["synth", "--tiles", "1", "-o", "file/tiles/"], "file is a file, not a folder"),
    ],
)
def test_an_output_where_no_file_can_be_written_is_refused(
    argv: list[str], rule: str, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sorted(p.name for p in folder.iterdir())
    assert main(argv) == 2
    assert rule in _one_error_line(capsys)
    assert sorted(p.name for p in folder.iterdir()) == before


def test_a_folder_import_makes_is_not_a_missing_folder(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # import -o DIR makes DIR and its parents: only a file in the way stops it.
    pytest.importorskip("tflite_micro")
    assert main(["import", "tflm", "model.tflite", "-o", "new/captures"]) == 0
    assert sorted(p.name for p in (folder / "new" / "captures").iterdir()) == [
        "model.json",
        "model.placement.json",
    ]


def _foreign_files(folder: Path) -> dict[str, tuple[Path, str]]:
    """Each kind of foreign file: where it is, and the command that reads it."""
    (folder / "prog.mlir").write_text("module {\n  func.func @main() {\n    return\n  }\n}\n")
    (folder / "slices.txt").write_text(
        "// -----// IR Dump Before LayoutSlices (iree-stream-layout-slices) //----- //\n"
        "util.func public @main() {\n}\n"
    )
    (folder / "model.hlo").write_text("HloModule jit_step, entry_computation_layout={}\n")
    dump = folder / "dump"
    dump.mkdir()
    assignment = dump / "module_0001.jit_step.cpu_after_optimizations-buffer-assignment.txt"
    assignment.write_text("BufferAssignment:\nallocation 0: size 64\n")
    (folder / "net.pte").write_bytes(b"\x18\x00\x00\x00ET12" + bytes(64))
    shutil.copy(EXAMPLES / "executorch" / "kws_dscnn.default.executorch.json", folder / "et.json")
    (folder / "conv_bm1684x_f32_final.mlir").write_text(
        'module @Conv attributes {module.chip = "bm1684x", module.state = "TPU_ADDRESSED"} {\n'
        '  %0 = "tpu.Group"(%arg0) ({\n'
        "  }) {flow = [-1, 0, -2, 1], swpipl_stage_num = 3 : i64} : () -> ()\n}\n"
    )
    (folder / "lmem_assign.log").write_text(
        "lmem_bytes = 262144; lmem_banks = 16; lmem_eu_bytes = 64\n"
        "status = success; op_name = conv1; addr = 0; size = 4096; timestep_start = 0; "
        "timestep_end = 1; hold_in_lmem = 0; allow_bank_conflict = 0; shape_secs = 1,1,1,1,1\n"
        "step = assignLmemAddr_finish; tag = success; membuf_allocate_failed = 0\n"
    )
    return {
        "a TFLite model": (folder / "model.tflite", "tilefit import tflm"),
        "an MLIR program": (folder / "prog.mlir", "tilefit import iree"),
        "an MLIR dump": (folder / "slices.txt", "tilefit import iree"),
        "an HLO text": (folder / "model.hlo", "tilefit import xla"),
        "an XLA buffer assignment": (assignment, "tilefit import xla"),
        "an XLA dump's folder": (dump, "tilefit import xla"),
        "an ExecuTorch program": (folder / "net.pte", "tilefit import executorch"),
        "ExecuTorch's specs": (folder / "et.json", "tilefit import executorch"),
        "TPU-MLIR's final.mlir": (
            folder / "conv_bm1684x_f32_final.mlir",
            "tilefit import tpumlir",
        ),
        "TPU-MLIR's lmem_assign trace": (folder / "lmem_assign.log", "tilefit import tpumlir"),
    }


KINDS = [
    "a TFLite model",
    "an MLIR program",
    "an MLIR dump",
    "an HLO text",
    "an XLA buffer assignment",
    "an XLA dump's folder",
    "an ExecuTorch program",
    "ExecuTorch's specs",
    "TPU-MLIR's final.mlir",
    "TPU-MLIR's lmem_assign trace",
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", ["diagnose", "report", "check"])
def test_a_foreign_file_names_the_command_that_reads_it(
    kind: str, command: str, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # tilefit diagnose model.tflite said "byte 40: not UTF-8 text".
    path, reader = _foreign_files(folder)[kind]
    argv = {
        "diagnose": ["diagnose", str(path)],
        "report": ["report", str(path), "-o", "r.html"],
        "check": ["check", "mine.json", str(path)],  # as the placement
    }[command]
    assert main(argv) == 2
    line = _one_error_line(capsys)
    wanted = "a placement" if command == "check" else "a capture"
    assert line.startswith(f"tilefit: {path}: this is "), line
    assert f", not {wanted}: " in line
    assert f"`{reader}" in line
    assert not (folder / "r.html").exists()


@pytest.mark.parametrize(
    ("argv", "reader"),
    [
        (["import", "iree", "model.tflite"], "tilefit import tflm"),
        (["import", "xla", "model.tflite"], "tilefit import tflm"),
        (["import", "tflm", "prog.mlir"], "tilefit import iree"),
        (["import", "iree", "conv_bm1684x_f32_final.mlir"], "tilefit import tpumlir"),
        (["import", "iree", "lmem_assign.log"], "tilefit import tpumlir"),
        (["import", "tflm", "dump"], "tilefit import xla"),
        (["import", "tflm", "et.json"], "tilefit import executorch"),
        (["replan", "iree", "model.tflite", "-o", "m.vmfb"], "tilefit import tflm"),
        (["export", "tflm", "prog.mlir", "mine.json", "-o", "m.tflite"], "tilefit import iree"),
    ],
)
def test_another_toolchains_file_names_its_command(
    argv: list[str], reader: str, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _foreign_files(folder)
    assert main(argv) == 2
    line = _one_error_line(capsys)
    command = f"tilefit {argv[0]} {argv[1]}"
    assert f"which {command} does not read: `{reader}" in line, line


def test_a_capture_that_mentions_mlir_is_still_a_capture(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The marks of text files are not looked for in JSON: a label may say anything.
    text = (
        (folder / "mine.json").read_text().replace('"name": "', '"name": "func.func tpu.Group ', 1)
    )
    (folder / "said.mlir.json").write_text(text)
    assert main(["bound", "said.mlir.json"]) in (0, 1)
    assert "this is" not in capsys.readouterr().err
