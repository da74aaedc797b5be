"""tilefit import iree (issue 39, item 1): a program compiled by IREE, or a dump of its
packing pass, as one capture per static transient pack, with IREE's layout as the
placement, refereed, and its slab the one IREE's compiler gives; dynamic packs said and
skipped; --capacity asks about the transient storage a user gives."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from iree_programs import DYNAMIC, SMALL, chain, needs_iree, write

from tilefit.cli import main
from tilefit.formats.load import read_capture, read_placement
from tilefit.toolchains import read
from tilefit.toolchains.base import Imported, ImportOptions
from tilefit.toolchains.iree.compiler import HOST, tool
from tilefit.verdicts.check import check

CHAIN = chain([64, 256, 64, 512, 64, 128, 64, 1024, 64])
# the flags the issue gives a user to make a dump: before the pass only, module scope
USER_DUMP = (
    "--compile-to=stream",
    "--mlir-print-ir-before=iree-stream-layout-slices",
    "--mlir-print-ir-module-scope",
    "--mlir-disable-threading",
)


@pytest.fixture(autouse=True)
def _iree() -> None:
    needs_iree()


def user_dump(program: Path, out: Path) -> Path:
    done = subprocess.run(
        [tool("iree-compile"), str(program), *HOST, *USER_DUMP, "-o", "/dev/null"],
        capture_output=True,
        text=True,
        check=True,
    )
    out.write_text(done.stderr)
    return out


def test_a_program_s_transient_pack_becomes_a_capture(tmp_path: Path) -> None:
    reading = read("iree", [str(write(tmp_path, "small.mlir", SMALL))])
    assert len(reading.imported) == 1
    item = reading.imported[0]
    capture = item.capture
    assert capture.name == "small.main.0"
    # three 16 KiB values: lives [0, 2], [1, 3], [2, 3], all live together at op 2
    assert [(r.id, r.size, r.start, r.end, r.alignment) for r in capture.requests] == [
        ("s0", 16384, 0, 3, 64),
        ("s1", 16384, 1, 4, 64),
        ("s2", 16384, 2, 4, 64),
    ]
    assert capture.origin is not None and capture.origin.heap == 49152
    assert "by dispatch main_dispatch_0_matmul_64x64x64_f32" in (capture.requests[0].label or "")
    assert item.notes == ()  # the slab is confirmed by the module after IREE's pass
    assert check(capture, item.placement).valid


def test_iree_s_slab_above_the_bound_is_reproduced_and_confirmed(tmp_path: Path) -> None:
    reading = read("iree", [str(write(tmp_path, "chain.mlir", CHAIN))])
    (item,) = reading.imported
    assert item.capture.origin is not None
    assert item.capture.origin.heap == 163840  # IREE's compiler says so too: no note
    assert item.notes == ()
    assert check(item.capture, item.placement).valid


def test_a_user_s_dump_gives_the_same_capture_unconfirmed(tmp_path: Path) -> None:
    program = write(tmp_path, "chain.mlir", CHAIN)
    dumped = user_dump(program, tmp_path / "chain.dump.txt")
    (ours,) = read("iree", [str(program)]).imported
    (theirs,) = read("iree", [str(dumped)]).imported

    def shape(item: Imported) -> list[tuple[str, int, int, int, int]]:
        return [(r.id, r.size, r.start, r.end, r.alignment) for r in item.capture.requests]

    assert shape(theirs) == shape(ours)
    # tilefit's own dump prints the source locations: the stablehlo op that made each slice
    assert (ours.capture.requests[0].source or "").startswith(f"{program}:3")
    assert theirs.capture.requests[0].source == "dispatch main_dispatch_0_matmul_32x256x64_f32"
    assert theirs.placement.offsets == ours.placement.offsets
    assert theirs.notes == (
        "the dump holds no module after the pass: IREE's slab is reproduced, unconfirmed",
    )
    assert theirs.capture.origin is not None and ":" in (theirs.capture.origin.source or "")


def test_a_slab_iree_gives_otherwise_is_refused(tmp_path: Path) -> None:
    # the module after the pass sizes the slab 64 B more than the packer gives: refused
    program = write(tmp_path, "small.mlir", SMALL)
    done = subprocess.run(
        [
            tool("iree-compile"),
            str(program),
            *HOST,
            *USER_DUMP,
            "--mlir-print-ir-after=iree-stream-layout-slices",
            "-o",
            "/dev/null",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "c49152" in done.stderr
    (tmp_path / "good.txt").write_text(done.stderr)
    (good,) = read("iree", [str(tmp_path / "good.txt")]).imported
    assert good.notes == ()
    (tmp_path / "bad.txt").write_text(done.stderr.replace("49152", "49216"))
    with pytest.raises(Exception, match="IREE's compiler gives pack %2 a slab of 49,216 B"):
        read("iree", [str(tmp_path / "bad.txt")])


def test_dynamic_packs_are_said_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reading = read("iree", [str(write(tmp_path, "dyn.mlir", DYNAMIC))])
    assert reading.imported == []
    assert any("sizes known only at run time" in s.reason for s in reading.skipped)
    assert main(["import", "iree", str(tmp_path / "dyn.mlir")]) == 2
    err = capsys.readouterr().err
    assert "skipped" in err and "not guessed" in err


def test_capacity_is_the_transient_storage_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = write(tmp_path, "chain.mlir", CHAIN)
    (item,) = read("iree", [str(program)], ImportOptions(capacity=150000)).imported
    assert item.capture.memory.size == 150000
    assert item.capture.origin is not None and item.capture.origin.heap == 163840
    out = tmp_path / "caps"
    assert main(["import", "iree", str(program), "--capacity", "150000", "-o", str(out)]) == 0
    capsys.readouterr()
    capture = read_capture(out / "chain.main.0.json")
    assert capture.memory.size == 150000
    # IREE's slab (163,840 B) does not fit in it; tilefit's plan does (the bound is 139,264 B)
    assert main(["diagnose", str(out / "chain.main.0.json"), "--json", "--workers", "1"]) == 0
    verdict = json.loads(capsys.readouterr().out)["verdict"]
    assert verdict == "fragmentation"
    placement = read_placement(out / "chain.main.0.placement.json")
    assert not check(capture, placement).valid  # IREE's own offsets reach past 150,000 B


def test_user_flags_reach_the_compiler(tmp_path: Path) -> None:
    program = write(tmp_path, "small.mlir", SMALL)
    flag = "--iree-stream-resource-min-offset-alignment=256"
    (item,) = read("iree", [str(program)], ImportOptions(flags=(flag,))).imported
    assert {r.alignment for r in item.capture.requests} == {256}
    assert item.notes == ()  # IREE's compiler, given the flag, packs as the packer does


def test_each_function_s_pack_is_read_from_its_own_section(tmp_path: Path) -> None:
    # IREE prints one section per function; with module scope, the later sections show
    # the earlier functions already packed: each pack must come from before the pass
    from iree_programs import two_functions

    program = write(tmp_path, "two.mlir", two_functions())
    imported = read("iree", [str(program)]).imported
    assert [i.capture.name for i in imported] == ["two.first.0", "two.second.0"]
    assert all(i.notes == () for i in imported)  # both slabs confirmed after the pass
    module_scope = user_dump(program, tmp_path / "two.dump.txt")
    again = read("iree", [str(module_scope)]).imported
    assert len(again) == 2
    assert [i.placement.offsets for i in again] == [i.placement.offsets for i in imported]
