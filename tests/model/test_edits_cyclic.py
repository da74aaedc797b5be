"""A lifetime edit on a circle may wrap; on a line it may not."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.model.edits import Lifetime, apply_edits
from tilefit.model.errors import InputError

LOOP = Capture(
    name="loop",
    horizon=4,
    period=4,
    memory=Memory(size=100, ranges=(Range(0, 100, "lmem"),)),
    requests=(Request("a", 60, 0, 2), Request("b", 30, 1, 3)),
)


def test_a_lifetime_may_wrap_round_the_circle() -> None:
    edited = apply_edits(LOOP, [Lifetime("b", 3, 1, "--lifetime b=3:1")])
    b = edited.requests[1]
    assert (b.start, b.end, b.wraps) == (3, 1, True)
    assert [b.lives_at(t) for t in range(4)] == [True, False, False, True]


@pytest.mark.parametrize(
    ("start", "end", "said"),
    [
        (4, 1, "the lifetime [4, 1) must satisfy 0 <= start < period (4)"),
        (2, 5, "the lifetime [2, 5) must satisfy 0 <= start < period (4)"),
    ],
)
def test_an_arc_off_the_circle_is_refused(start: int, end: int, said: str) -> None:
    with pytest.raises(InputError, match=re.escape(said)):
        apply_edits(LOOP, [Lifetime("b", start, end, "--lifetime b")])


def test_on_a_line_a_lifetime_never_wraps() -> None:
    line = replace(LOOP, period=None)
    with pytest.raises(InputError, match=r"the lifetime \[3, 1\) must satisfy 0 <= start < end"):
        apply_edits(line, [Lifetime("b", 3, 1, "--lifetime b")])
