"""The retry chain keeps production placements and falls back only where they fail."""

from __future__ import annotations

from engine_cases import FRAGMENTED, LIFETIME_ONLY, OVER_CAPACITY
from engine_helpers import captures, check_valid
from hypothesis import given, settings

from tilefit.model.capture import Capture
from tilefit.output.jsonout import place_json
from tilefit.verdicts.replay import replay
from tilefit.verdicts.retry import place


def test_a_tile_that_production_fits_keeps_its_placement() -> None:
    result = place(FRAGMENTED, ["long-lived/first-fit"])
    assert result.fits and not result.fallback
    assert result.strategy == "alignment/first-fit"
    assert [a.strategy.name for a in result.attempts] == [
        "lifetime/first-fit",
        "alignment/first-fit",
    ]
    assert result.placement == replay(FRAGMENTED).placement


def test_fallbacks_run_only_when_production_fails() -> None:
    result = place(LIFETIME_ONLY)
    assert result.fits and result.fallback and result.status == "fits"
    assert result.strategy == "long-lived/first-fit"
    assert result.production == 1
    assert result.placement is not None
    assert dict(result.placement.offsets) == {"t": 16, "s": 0, "x": 0}
    check_valid(LIFETIME_ONLY, result.placement.offsets)


def test_fallbacks_are_tried_in_order_until_one_fits() -> None:
    result = place(LIFETIME_ONLY, ["lifetime/best-fit", "size/first-fit", "long-lived/first-fit"])
    assert [a.strategy.name for a in result.attempts] == [
        "lifetime/first-fit",
        "lifetime/best-fit",
        "size/first-fit",
    ]
    assert result.strategy == "size/first-fit"


def test_when_everything_fails_there_is_no_placement() -> None:
    result = place(OVER_CAPACITY)
    assert not result.fits and result.status == "failed"
    assert result.strategy is None and result.placement is None and not result.fallback
    assert len(result.attempts) == 3
    out = place_json(result)
    assert (out["status"], out["strategy"], out["placement"]) == ("failed", None, None)


def test_no_fallbacks_is_the_production_replay() -> None:
    assert place(LIFETIME_ONLY, ()).attempts == replay(LIFETIME_ONLY).attempts


def test_json_holds_the_placement_object() -> None:
    out = place_json(place(LIFETIME_ONLY))
    assert list(out)[:3] == ["status", "strategy", "placement"]
    assert out["placement"]["format"] == "tilefit-placement"
    assert out["placement"]["offsets"] == {"t": 16, "s": 0, "x": 0}
    assert out["fallback"] is True


@settings(max_examples=80, deadline=None)
@given(captures())
def test_production_placements_are_kept_exactly(capture: Capture) -> None:
    production = replay(capture)
    result = place(capture)
    # production's placement kept exactly; a fallback named exactly when it rescued the tile
    # (LIFETIME_ONLY above is a fixed case of the rescue, rare among random captures)
    assert (result.placement == production.placement) or not production.fits
    assert result.fallback == (result.fits and not production.fits)
    assert (result.placement is not None) == result.fits
    if result.placement is not None:
        check_valid(capture, result.placement.offsets)
