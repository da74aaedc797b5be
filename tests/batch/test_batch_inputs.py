"""Batch inputs: files, folders and bundles expand into sources; a bad one loads as an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tilefit.batch.bundle import write_bundle
from tilefit.batch.inputs import expand, load
from tilefit.formats.save import write_capture
from tilefit.generate.synth import Recipe, make_tile
from tilefit.model.errors import InputError

TILE = make_tile(Recipe(requests=30, layers=3), name="t")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    write_capture(TILE, tmp_path / "b.json")
    (tmp_path / "sub").mkdir()
    write_capture(TILE, tmp_path / "sub" / "a.json")
    write_bundle([TILE, TILE], tmp_path / "sub" / "m.jsonl")
    (tmp_path / "notes.txt").write_text("not a capture")
    (tmp_path / "export.csv").write_text("id,lower,upper,size\n")
    (tmp_path / ".hidden").mkdir()
    write_capture(TILE, tmp_path / ".hidden" / "x.json")
    return tmp_path


def test_a_folder_expands_recursively_in_order(tree: Path) -> None:
    sources = expand([str(tree)])
    keys = [s.key for s in sources]
    root = str(tree.resolve())
    assert keys == [
        f"{root}/b.json",
        f"{root}/sub/a.json",
        f"{root}/sub/m.jsonl:1",
        f"{root}/sub/m.jsonl:2",
    ]
    assert [s.default_name for s in sources] == ["b", "a", "m-line1", "m-line2"]


def test_each_source_once_and_csv_only_when_named(tree: Path) -> None:
    sources = expand([str(tree / "b.json"), str(tree), str(tree / "export.csv")])
    keys = [s.key for s in sources]
    assert len(keys) == len(set(keys)) == 5
    assert keys[0].endswith("/b.json") and keys[-1].endswith("/export.csv")


def test_a_missing_input_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        expand([str(tmp_path / "nope.json")])


def test_load_reads_files_and_bundle_lines(tree: Path) -> None:
    sources = expand([str(tree / "sub")])
    jobs = [job for s in sources for job in load(s)]
    assert jobs[0].text == (tree / "sub" / "a.json").read_text()
    assert jobs[1].text.startswith('{"format":"tilefit-capture"')
    assert jobs[1].filename == "m.jsonl" and jobs[1].name == "m-line1"


def test_bytes_that_are_not_text_fail_to_load(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_bytes(b"\xff\xfe{}")
    (source,) = expand([str(tmp_path)])
    with pytest.raises(InputError, match="not UTF-8") as caught:
        load(source)
    assert caught.value.source == source.key


def test_another_tool_s_json_in_a_folder_gives_no_job_unless_named(tmp_path: Path) -> None:
    # A TPU-MLIR work folder holds its own .json files beside the captures: found in a
    # folder, a .json that names neither the capture format nor requests gives no job;
    # a broken capture (it names requests) still loads, to become an error row; named on
    # the command line, even another tool's file is read, to become one.
    write_capture(TILE, tmp_path / "a.json")
    (tmp_path / "net.layer_group_debugger.json").write_text('{"type": 3, "groups": []}')
    (tmp_path / "broken.json").write_text('{"requests": [}')
    (tmp_path / "cut.json").write_text('{"form')  # a capture cut short: no mark left
    (tmp_path / "deep.json").write_text("[" * 100_000)  # past the JSON parser's nesting
    found = {s.path.name: load(s) for s in expand([str(tmp_path)])}
    assert found["net.layer_group_debugger.json"] == []
    assert [job.name for job in found["a.json"]] == ["a"]
    assert [job.name for job in found["broken.json"]] == ["broken"]
    assert [job.name for job in found["cut.json"]] == ["cut"]
    assert [job.name for job in found["deep.json"]] == ["deep"]
    (named,) = expand([str(tmp_path / "net.layer_group_debugger.json")])
    assert [job.name for job in load(named)] == ["net.layer_group_debugger"]
