"""Bad input to tilefit import iree (issue 39, item 5): one line naming the file and the
rule, exit 2, never a traceback: not MLIR, a program IREE rejects (its first error line),
a dump with no pack, a dump whose pass names are not this IREE's."""

from __future__ import annotations

from pathlib import Path

import pytest
from iree_programs import SMALL, needs_iree, write

from tilefit.cli import main


@pytest.fixture(autouse=True)
def _iree() -> None:
    needs_iree()


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["import", "iree", *argv]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    return lines[0]


def test_not_mlir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    binary = tmp_path / "model.mlir"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    assert refused(capsys, str(binary)) == (
        f"tilefit: {binary}: not MLIR: neither UTF-8 text nor MLIR bytecode"
    )
    words = write(tmp_path, "notes.mlir", "just some words\n")
    assert refused(capsys, str(words)) == (
        f"tilefit: {words}: not MLIR: no module and no function in it"
    )


def test_a_program_iree_rejects_in_iree_s_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = write(tmp_path, "bad.mlir", SMALL.replace("stablehlo.tanh", "stablehlo.tahn"))
    line = refused(capsys, str(program))
    assert line.startswith(f"tilefit: {program}: iree-compile refuses it: ")
    assert "error:" in line and "stablehlo.tahn" in line


def test_a_dump_with_no_pack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dump = write(
        tmp_path,
        "empty.txt",
        "// -----// IR Dump Before LayoutSlicesPass: iree-stream-layout-slices "
        "('util.func' operation: @main) //----- //\n"
        "util.func public @main() {\n  util.return\n}\n",
    )
    assert main(["import", "iree", str(dump)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"tilefit import: skipped {dump}: no stream.resource.pack op: nothing to plan",
        f"tilefit: {dump}: nothing to import: no IREE plan in these inputs",
    ]


def test_a_dump_of_an_iree_whose_pass_names_differ(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dump = write(
        tmp_path,
        "other.txt",
        "// -----// IR Dump Before PackSlicesPass: iree-stream-pack-slices //----- //\n"
        "util.func public @main() {\n  util.return\n}\n",
    )
    assert refused(capsys, str(dump)) == (
        f"tilefit: {dump}: line 1: the dump names no iree-stream-layout-slices pass (it "
        "names iree-stream-pack-slices): an IREE version whose pass names differ, or a dump "
        "of another pass"
    )
    text = write(tmp_path, "plain.txt", "hello\n")
    assert refused(capsys, str(text)).startswith(f"tilefit: {text}: not MLIR")


def test_an_alignment_iree_does_not_use(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = write(tmp_path, "small.mlir", SMALL)
    assert refused(capsys, str(program), "--alignment", "16") == (
        "tilefit: --alignment: IREE aligns this program's slices to 64 B; its flag "
        "--iree-stream-resource-min-offset-alignment=N (passed with --flag) changes that"
    )


def test_inputs_iree_s_runtime_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import numpy as np

    program = write(tmp_path, "small.mlir", SMALL)
    args = tmp_path / "args.npz"
    np.savez(args, np.zeros((3, 3), np.float32))  # one argument of the wrong shape, not two
    out = tmp_path / "small.vmfb"
    assert main(["replan", "iree", str(program), "-o", str(out), "--inputs", str(args)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0]
    assert err[0].startswith("tilefit: --inputs: IREE's runtime refuses the call of @main: ")
    assert not out.exists()
