"""The .jsonl bundle: one capture per line, written and read back line by line."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tilefit.batch.bundle import bundle_line, bundle_lines, read_line, write_bundle, write_folder
from tilefit.formats.load import capture_from_json, parse_json, read_capture
from tilefit.generate.synth import Recipe, make_tile

TILES = [make_tile(Recipe(requests=40, layers=4, seed=s), name=f"t{s}", tile=s) for s in range(3)]


def test_a_bundle_line_is_one_line_and_the_same_capture() -> None:
    line = bundle_line(TILES[0])
    assert "\n" not in line
    assert capture_from_json(parse_json(line)) == TILES[0]


def test_write_bundle_then_read_each_line(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    assert write_bundle(TILES, path) == 3
    # A blank line is not a capture.
    path.write_bytes(path.read_bytes().replace(b"\n", b"\n\n", 1))
    found = list(bundle_lines(path))
    assert [number for number, _ in found] == [1, 3, 4]
    for tile, (_, offset) in zip(TILES, found, strict=True):
        assert capture_from_json(parse_json(read_line(path, offset).decode())) == tile


def test_write_folder(tmp_path: Path) -> None:
    assert write_folder(TILES, tmp_path / "tiles") == 3
    assert read_capture(tmp_path / "tiles" / "t2.json") == TILES[2]


def test_a_name_that_is_no_file_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="file name"):
        write_folder([replace(TILES[0], name="a/b")], tmp_path)
