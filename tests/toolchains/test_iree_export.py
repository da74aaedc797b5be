"""tilefit export iree and replan iree (issue 39, item 2): placements written into the
packs only after the referee accepts them, the module compiled and run on IREE's runtime
beside the one with IREE's own offsets, every output compared bit for bit; IREE's own
offsets written back give the same bytes, and a broken plan (two live slices on one byte)
changes the outputs, so that the comparison can fail."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from iree_programs import chain, needs_iree, write

from tilefit.cli import main
from tilefit.formats.save import write_placement
from tilefit.model.placement import Placement
from tilefit.toolchains import read
from tilefit.toolchains.iree.compiler import Flags, finish
from tilefit.toolchains.iree.module import read_stages
from tilefit.toolchains.iree.reading import found_packs
from tilefit.toolchains.iree.rewrite import Written, with_offsets
from tilefit.toolchains.iree.runtime import run_module

CHAIN = chain([64, 256, 64, 512, 64, 128, 64, 1024, 64])


@pytest.fixture(autouse=True)
def _iree() -> None:
    needs_iree()


def test_a_smaller_plan_is_written_and_runs_identically(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = write(tmp_path, "chain.mlir", CHAIN)
    caps = tmp_path / "caps"
    assert main(["import", "iree", str(program), "-o", str(caps)]) == 0
    least = tmp_path / "least.json"
    assert main(["solve", "--minimize", str(caps / "chain.main.0.json"), "-o", str(least)]) == 0
    capsys.readouterr()
    out = tmp_path / "chain.vmfb"
    assert main(["export", "iree", str(program), str(least), "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["head_before"] == 163840 and report["head_after"] == 139264
    assert report["packs"] == [
        {"name": "chain.main.0", "requests": 7, "before": 163840, "after": 139264}
    ]
    runtime = report["runtime"]
    assert runtime["outputs_identical"] and runtime["outputs_vary"]
    # the module compiled allocates the slab written, as IREE's stream phase finished it
    assert (runtime["head_before"], runtime["head_after"]) == (163840, 139264)
    assert len(run_module(out.read_bytes(), "chain.vmfb").calls) == 2  # the file written runs


def _module_and_packs(program: Path) -> tuple[str, list[Written]]:
    stages = read_stages(program, Flags(), module_scope=True)
    (item,) = read("iree", [str(program)]).imported
    (found,) = [f for f in found_packs(stages) if f.pack.lifetime == "transient"]
    own = item.placement.offsets
    values = (item.capture.origin.heap if item.capture.origin else 0,)
    values += tuple(own[f"s{s.index}"] for s in found.pack.slices)
    return stages.before[0].text, [Written(found.pack, found.function, values)]


def test_iree_s_own_offsets_give_the_same_module_and_a_broken_plan_other_outputs(
    tmp_path: Path,
) -> None:
    program = write(tmp_path, "chain.mlir", CHAIN)
    module, (own,) = _module_and_packs(program)
    _, untouched = finish(module, Flags(), "chain")
    _, same = finish(with_offsets(module, [own]), Flags(), "chain")
    assert same == untouched  # IREE's offsets written back: byte for byte IREE's module
    # broken: slice 1 put on slice 0's bytes while both live ([0, 1] and [1, 2])
    slices = own.pack.slices
    assert slices[0].intersects(slices[1])
    values = list(own.values)
    values[2] = values[1]
    broken = Written(own.pack, own.function, tuple(values))
    _, wrong = finish(with_offsets(module, [broken]), Flags(), "chain")
    assert run_module(wrong, "chain") != run_module(untouched, "chain")


def test_the_referee_refuses_before_anything_is_compiled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = write(tmp_path, "chain.mlir", CHAIN)
    out = tmp_path / "x.vmfb"
    overlapping = tmp_path / "overlap.json"
    write_placement(Placement("chain.main.0", {f"s{i}": 0 for i in range(7)}), overlapping)
    assert main(["export", "iree", str(program), str(overlapping), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the referee rejects it on chain.main.0's capture" in err[0]
    other = tmp_path / "other.json"
    write_placement(Placement("small.main.0", {"s0": 0}), other)
    assert main(["export", "iree", str(program), str(other), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"tilefit: {other}: capture: names small.main.0, not a pack of chain.mlir (its "
        "packs: chain.main.0): a placement of another program?"
    ]
    assert not out.exists()


def test_replan_in_one_step_with_the_user_s_inputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = write(tmp_path, "chain.mlir", CHAIN)
    args = tmp_path / "args.npz"
    np.savez(args, np.full((32, 64), 0.5, np.float32))
    out = tmp_path / "chain.vmfb"
    code = main(["replan", "iree", str(program), "-o", str(out), "--inputs", str(args), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["proven_minimal"] and report["lower_bound"] == 139264
    assert report["head_after"] == 139264 and report["output"] == str(out)
    assert report["runtime"]["invocations"] == 1 and report["runtime"]["outputs_identical"]
    assert out.is_file()


def test_one_function_s_pack_replanned_the_other_kept(tmp_path: Path) -> None:
    from iree_programs import two_functions

    from tilefit.toolchains.base import ExportOptions
    from tilefit.toolchains.iree.export import export_plans
    from tilefit.verdicts.solving import solve

    program = write(tmp_path, "two.mlir", two_functions())
    imported = {i.capture.name: i for i in read("iree", [str(program)]).imported}
    second = imported["two.second.0"]
    least = solve(second.capture, 5, minimize=True).placement
    assert least is not None
    exported = export_plans(program, [least], ExportOptions())
    parts = {p.name: (p.before, p.after) for p in exported.parts}
    first = parts["two.first.0"]
    assert first[0] == first[1]  # kept: IREE's own layout
    assert parts["two.second.0"][1] < parts["two.second.0"][0]
    assert exported.runtime is not None
    assert exported.runtime.identical and exported.runtime.invocations == 4  # 2 functions x 2
