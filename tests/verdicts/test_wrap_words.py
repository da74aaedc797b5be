"""A lifetime that wraps round a cyclic capture's end says so wherever a request's steps
are written (``model.words.lifetime_text``): ``steps [3, 1) (wraps)`` is no reversed
range."""

from __future__ import annotations

from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.model.placement import Placement
from tilefit.model.words import lifetime_text
from tilefit.verdicts.check import check


def test_a_wrapping_lifetime_is_written_as_one() -> None:
    assert lifetime_text(0, 2) == "steps [0, 2)"
    assert lifetime_text(3, 1) == "steps [3, 1) (wraps)"


def test_the_referee_names_a_wrapping_request_as_wrapping() -> None:
    wrapping = Request("w", 16, 3, 1)
    plain = Request("p", 16, 0, 2)  # meets w at step 0
    capture = Capture("arc", 4, Memory(64, (Range(0, 64),)), (wrapping, plain), period=4)
    missing = check(capture, Placement("arc", {"p": 0}))
    assert [v.detail for v in missing.violations] == [
        "w (16 B, class default, steps [3, 1) (wraps)) has no offset"
    ]
    overlapping = check(capture, Placement("arc", {"p": 0, "w": 8}))
    (clash,) = overlapping.violations
    assert "w at [8, 24) steps [3, 1) (wraps)" in clash.detail
    assert "and p at [0, 16) steps [0, 2) share" in clash.detail
    assert check(capture, Placement("arc", {"p": 0, "w": 16})).valid
