"""Colours: labels read on every class colour, light text on dark and mid fills."""

from __future__ import annotations

import pytest

from tilefit.plot.colors import (
    _KNOWN,
    _OTHERS,
    DARK_TEXT,
    LIGHT_TEXT,
    class_colors,
    contrast,
    label_color,
    luminance,
)


def test_luminance_and_contrast_follow_wcag() -> None:
    assert luminance("#000000") == 0 and luminance("#ffffff") == pytest.approx(1)
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


@pytest.mark.parametrize("fill", [*_KNOWN.values(), *_OTHERS, "#d62728", "#ffd92f", "#202020"])
def test_every_fill_gets_a_label_colour_of_enough_contrast(fill: str) -> None:
    assert contrast(fill, label_color(fill)) >= 4.5


def test_light_text_on_the_resident_blue() -> None:
    assert label_color(class_colors(["resident"])["resident"]) == LIGHT_TEXT
    assert label_color(class_colors(["output"])["output"]) == DARK_TEXT
    assert label_color("#202020") == LIGHT_TEXT and label_color("#ffd92f") == DARK_TEXT


@pytest.mark.parametrize("fill", [*_KNOWN.values(), *_OTHERS])
def test_dark_text_still_reads_on_a_class_colour_that_takes_light(fill: str) -> None:
    # While the report fades boxes (a class highlighted, a box selected) labels turn dark,
    # also on the boxes left at full colour.
    assert contrast(fill, DARK_TEXT) >= 4.5
