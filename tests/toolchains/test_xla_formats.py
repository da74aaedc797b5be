"""The XLA importer on dump excerpts written for the tests (no jax needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from xla_dumps import ASSIGNMENT, LIVE_RANGE, write_dump

from tilefit.bounds.deficit import bound
from tilefit.cli import main
from tilefit.formats.load import read_capture, read_placement
from tilefit.model.errors import InputError
from tilefit.toolchains import read
from tilefit.toolchains.base import Imported, ImportOptions
from tilefit.toolchains.xla.assignment import parse_assignment
from tilefit.toolchains.xla.liverange import parse_live_ranges
from tilefit.verdicts.check import check
from tilefit.verdicts.imported import at_own_heap


def _import(folder: Path, **options: int) -> list[Imported]:
    """Import the dump in ``folder``, the toy module when it holds none yet."""
    if not any(folder.glob("*-buffer-assignment.txt")):
        write_dump(folder)
    return read("xla", [str(folder)], ImportOptions(**options)).imported


def test_the_allocations_and_their_kinds() -> None:
    allocations = parse_assignment(ASSIGNMENT)
    assert [a.index for a in allocations] == [0, 1, 2]
    assert allocations[0].kinds == ("parameter 0",)
    assert allocations[1].kinds == ("output shape is ||", "maybe-live-out")
    assert [a.temp for a in allocations] == [False, False, True]
    tuple_value = allocations[2].values[3]
    assert (tuple_value.name, tuple_value.key, tuple_value.size) == ("t{}", "t{}", 16)
    assert allocations[2].values[0].name == "a" and allocations[2].values[0].key == "a{}"


def test_the_live_ranges_are_inclusive_steps() -> None:
    live = parse_live_ranges(LIVE_RANGE)
    assert live.steps == 7 and live.sequence[2] == "b"
    assert live.ranges["b{}"] == (2, 4) and live.ranges["out{}"] == (6, 7)


def test_each_rule_of_the_import(tmp_path: Path) -> None:
    [item] = _import(tmp_path)
    capture = item.capture
    assert capture.name == "module_0001.jit_toy"
    assert capture.horizon == 8 and capture.memory.size == 528
    assert capture.origin is not None and capture.origin.heap == 528
    spans = {r.id: (r.size, r.start, r.end, r.alignment) for r in capture.requests}
    # b is written in place over a: one request from a's first step to b's last.
    assert spans == {
        "a": (256, 1, 5, 64),
        "c": (256, 3, 6, 64),
        "t{}": (16, 0, 8, 64),
        "e": (128, 5, 7, 64),
        "d": (200, 6, 7, 64),
    }
    assert "shares its buffer with b" in (capture.request_by_id["a"].label or "")
    # A tuple's table has an allocation of its own: its bytes are its own all along.
    assert capture.request_by_id["t{}"].cls == "tuple"
    assert {r.cls for r in capture.requests if r.id != "t{}"} == {"default"}
    assert item.values == 6
    assert dict(item.placement.offsets) == {"a": 0, "c": 256, "t{}": 512, "e": 0, "d": 256}
    assert check(capture, item.placement).valid
    assert bound(capture).lower_bound <= capture.origin.heap


def test_values_meeting_at_one_step_at_two_offsets_keep_their_own_bytes(tmp_path: Path) -> None:
    [item] = _import(tmp_path)
    moved = dict(item.placement.offsets, e=256)  # e onto c's bytes: both live at step 5
    checked = check(item.capture, type(item.placement)(item.capture.name, moved))
    assert not checked.valid
    assert {v.kind for v in checked.violations} == {"overlap"}


def test_capacity_asks_about_other_memory_but_xla_is_refereed_in_its_own(tmp_path: Path) -> None:
    [item] = _import(tmp_path, capacity=400)
    assert item.capture.memory.size == 400 and item.capture.origin.heap == 528
    assert not check(item.capture, item.placement).valid
    assert check(at_own_heap(item.capture), item.placement).valid


def test_the_command_writes_captures_and_placements_named_after_the_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_dump(tmp_path / "dump")
    out = tmp_path / "out"
    assert main(["import", "xla", str(tmp_path / "dump"), "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    [row] = report["imports"]
    assert row["placement_valid"] is True and row["heap"] == 528
    capture = read_capture(out / "module_0001.jit_toy.json")
    placement = read_placement(out / "module_0001.jit_toy.placement.json")
    assert check(capture, placement).valid
    assert capture.origin is not None and capture.origin.tool == "XLA"
    assert main(["check", str(out / "module_0001.jit_toy.json"), row["placement_file"]]) == 0


def test_diagnose_and_solve_say_where_xla_stands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_dump(tmp_path / "dump")
    main(["import", "xla", str(tmp_path / "dump"), "-o", str(tmp_path)])
    capsys.readouterr()
    capture = str(tmp_path / "module_0001.jit_toy.json")
    main(["diagnose", capture, "--json"])
    standing = json.loads(capsys.readouterr().out)["heap_standing"]
    assert standing["tool"] == "XLA" and standing["heap"] == 528
    main(["solve", capture, "--minimize", "--json"])
    solved = json.loads(capsys.readouterr().out)
    assert solved["heap_standing"]["best_top"] == solved["best_top"]
    main(["solve", capture, "--minimize"])
    assert "XLA's heap is" in capsys.readouterr().out


def test_xla_optimal_when_its_heap_is_the_lower_bound(tmp_path: Path) -> None:
    # Keep only a and b: one buffer of 256 B, which is both the heap and the peak.
    text = ASSIGNMENT.replace("size 528, preallocated-temp", "size 256, preallocated-temp")
    text = (
        "\n".join(
            line
            for line in text.split("\n")
            if not line.startswith((" value: <3", " value: <4", " value: <5", " value: <6"))
        )
        + "\n"
    )
    write_dump(tmp_path, text)
    [item] = _import(tmp_path)
    from tilefit.verdicts.heap import heap_standing

    standing = heap_standing(item.capture, bound(item.capture).lower_bound, None)
    assert standing is not None and standing.optimal
    assert standing.text.startswith("XLA's heap is optimal (equals the live lower bound")


BAD = [
    # (what, assignment, live range, file the error names, text in the error)
    (
        "cut mid-line",
        ASSIGNMENT[: ASSIGNMENT.index("(size=16")],
        LIVE_RANGE,
        "buffer-assignment.txt: line 10",
        "not a line of XLA's buffer assignment",
    ),
    (
        "cut between values",
        ASSIGNMENT[: ASSIGNMENT.index(" value: <4")],
        LIVE_RANGE,
        "buffer-assignment.txt: line 6",
        "its values end at 512",
    ),
    (
        "not a dump",
        "hello\n",
        LIVE_RANGE,
        "buffer-assignment.txt: line 1",
        "not XLA's buffer assignment",
    ),
    (
        "unknown kind",
        ASSIGNMENT.replace("maybe-live-out", "swizzled"),
        LIVE_RANGE,
        "buffer-assignment.txt: line 4",
        "allocation kind not understood: 'swizzled'",
    ),
    (
        "a value without a range",
        ASSIGNMENT,
        LIVE_RANGE.replace("    d{}:6-6\n", ""),
        "buffer-assignment.txt: line 12",
        "value d has no live range",
    ),
    (
        "misaligned",
        ASSIGNMENT.replace("offset=512", "offset=500").replace("size 528", "size 516"),
        LIVE_RANGE,
        "buffer-assignment.txt: line 10",
        "not a multiple of the cpu heap alignment 64",
    ),
    (
        "live ranges cut short",
        ASSIGNMENT,
        LIVE_RANGE[: LIVE_RANGE.index("  Live ranges at")],
        "live-range.txt: line 19",
        "cut short",
    ),
    (
        "cut before its temp allocation",
        ASSIGNMENT[: ASSIGNMENT.index("allocation 2:")],
        LIVE_RANGE,
        "buffer-assignment.txt",
        "cut short: the live ranges name 6 values it does not list",
    ),
    (
        "range past the end",
        ASSIGNMENT,
        LIVE_RANGE.replace("d{}:6-6", "d{}:6-9"),
        "live-range.txt: line 17",
        "range 6-9 not within 0-7",
    ),
]


@pytest.mark.parametrize(
    ("assignment", "live_range", "where", "rule"), [b[1:] for b in BAD], ids=[b[0] for b in BAD]
)
def test_bad_dumps_are_one_line_naming_file_line_and_rule(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    assignment: str,
    live_range: str,
    where: str,
    rule: str,
) -> None:
    write_dump(tmp_path, assignment, live_range)
    assert main(["import", "xla", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and where in err and rule in err, err


def test_unknown_backend_and_folders_without_dumps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_dump(tmp_path / "tpu", stem="module_0001.jit_toy.tpu_after_optimizations")
    assert main(["import", "xla", str(tmp_path / "tpu")]) == 2
    assert "backend 'tpu' not understood" in capsys.readouterr().err
    assert main(["import", "xla", str(tmp_path / "tpu"), "--alignment", "64"]) == 0
    capsys.readouterr()
    (tmp_path / "empty").mkdir()
    assert main(["import", "xla", str(tmp_path / "empty")]) == 2
    assert "is it an XLA dump?" in capsys.readouterr().err
    stray = tmp_path / "notes.txt"
    stray.write_text("x")
    assert main(["import", "xla", str(stray)]) == 2
    assert "not a file of an XLA dump" in capsys.readouterr().err


def test_older_dumps_keep_the_live_ranges_in_the_assignment_file(tmp_path: Path) -> None:
    older = ASSIGNMENT + "\nTotal bytes used: 1040 (1.0KiB)\n\nUsed values:\n<0 p0 @0>\n\n"
    write_dump(tmp_path, older + LIVE_RANGE, live_range=None)
    [item] = _import(tmp_path)
    assert check(item.capture, item.placement).valid and len(item.capture.requests) == 5


def test_origin_round_trips_and_is_checked(tmp_path: Path) -> None:
    [item] = _import(write_dump(tmp_path / "d").parent)
    from tilefit.formats.load import capture_from_json
    from tilefit.formats.save import capture_to_json

    obj = capture_to_json(item.capture)
    assert capture_from_json(obj) == item.capture
    obj["origin"] = {"tool": "XLA", "heap": -1}
    with pytest.raises(InputError, match=r"origin\.heap: must be >= 0"):
        capture_from_json(obj)
    obj["origin"] = {"tool": "XLA", "heap": 1, "colour": 2}
    with pytest.raises(InputError, match="origin"):
        capture_from_json(obj)


def test_batch_reads_dump_folders_one_row_per_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_dump(tmp_path / "dumps" / "one")
    write_dump(tmp_path / "dumps" / "two", stem="module_0002.jit_other.cpu_after_optimizations")
    db = tmp_path / "r.sqlite"
    assert main(["batch", str(tmp_path / "dumps"), "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["captures"] == 2
    from tilefit.batch.store import Store

    with Store.open(db, create=False) as store:
        rows = store.rows()
    assert sorted(r.name for r in rows) == ["module_0001.jit_toy", "module_0002.jit_other"]
    assert all(r.error is None and r.verdict in ("fits", "fragmentation") for r in rows)


HLO = """HloModule jit_loss, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

FileNames
1 "/home/me/project/model.py"

FunctionNames
1 "loss"

FileLocations
1 {file_name_id=1 function_name_id=1 line=42 end_line=42 column=1 end_column=9}

StackFrames
1 {file_location_id=1 parent_frame_id=1}


%fused_computation (param_0: f32[4]) -> f32[4] {
  %param_0 = f32[4]{0} parameter(0)
  ROOT %tanh.0 = f32[4]{0} tanh(%param_0), metadata={op_name="jit(loss)/tanh" stack_frame_id=1}
}

ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0), metadata={op_name="x"}
  %copy.3 = f32[4]{0} copy(%x), metadata={op_name="jit/copy" source_file="/a/b/c.py" source_line=7}
  ROOT %tanh_fusion = f32[4]{0} fusion(%copy.3), kind=kLoop, calls=%fused_computation
}
"""


def test_the_hlo_text_names_what_made_each_value_and_its_program_line() -> None:
    from tilefit.toolchains.xla.hlo import Made, parse_hlo

    made = parse_hlo(HLO)
    # a fusion without metadata takes its root's; a stack frame gives the file and line
    assert made["tanh_fusion"] == Made("fusion", "jit(loss)/tanh", "project/model.py:42")
    assert made["copy.3"] == Made("copy", "jit/copy", "b/c.py:7")
    assert made["x"] == Made("parameter", "x", None)
