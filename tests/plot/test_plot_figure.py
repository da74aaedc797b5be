"""Figures as files: valid images of the expected size, the failed unit named, same bytes twice."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from matplotlib import image
from report_helpers import fragmented, over_capacity

from tilefit.engine.attempt import run_strategy
from tilefit.model.errors import InputError
from tilefit.plot.figure import DPI, MAP_HEIGHT, PROFILE_HEIGHT, WIDTH, save_figure, tile_figure
from tilefit.plot.layout import MemoryMap, attempt_map
from tilefit.plot.series import profile_series

TITLE = 0.9  # inches above the plots for the title and the legend


def _failure_map() -> MemoryMap:
    capture = fragmented()
    return attempt_map(capture, run_strategy(capture, "alignment/first-fit"))


def _png_size(path: Path) -> tuple[int, int]:
    pixels = image.imread(path, format="png")
    return pixels.shape[1], pixels.shape[0]


@pytest.mark.parametrize(
    ("with_map", "with_profile", "height"),
    [
        (True, False, MAP_HEIGHT + TITLE),
        (True, True, MAP_HEIGHT + PROFILE_HEIGHT + TITLE),
        (False, True, PROFILE_HEIGHT + TITLE),
    ],
)
def test_png_has_the_expected_size(
    tmp_path: Path, with_map: bool, with_profile: bool, height: float
) -> None:
    layout = _failure_map() if with_map else None
    series = profile_series(fragmented()) if with_profile else None
    path = tmp_path / "map.png"
    save_figure(tile_figure(layout, series), path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert _png_size(path) == (round(WIDTH * DPI), round(height * DPI))


def test_svg_is_valid_sized_and_names_the_failed_unit(tmp_path: Path) -> None:
    path = tmp_path / "map.svg"
    save_figure(tile_figure(_failure_map(), None), path)
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    assert root.get("width") == f"{WIDTH * 72:g}pt"
    assert root.get("height") == f"{(MAP_HEIGHT + TITLE) * 72:g}pt"
    text = path.read_text(encoding="utf-8")
    assert "big" in text and "layer1/out_proj" in text  # the failed unit, as text not paths
    assert "needs 40 B" in text
    assert "host aperture (scratch only)" in text
    assert "<dc:date>" not in text


def test_same_input_same_bytes(tmp_path: Path) -> None:
    for suffix in ("png", "svg"):
        first, second = tmp_path / f"a.{suffix}", tmp_path / f"b.{suffix}"
        for path in (first, second):
            save_figure(tile_figure(_failure_map(), profile_series(fragmented())), path)
        assert first.read_bytes() == second.read_bytes()


def test_a_capacity_profile_names_the_peak_and_the_deficit(tmp_path: Path) -> None:
    path = tmp_path / "profile.svg"
    save_figure(tile_figure(None, profile_series(over_capacity())), path)
    text = path.read_text(encoding="utf-8")
    assert "peak 112 B at step 1: 16 B over the available storage" in text
    assert "available 96 B" in text


def test_only_png_and_svg(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"\.png or \.svg"):
        save_figure(tile_figure(_failure_map(), None), tmp_path / "map.jpg")


def test_nothing_to_draw_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="nothing to draw"):
        tile_figure(None, None)
