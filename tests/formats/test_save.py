"""The writer round-trips a capture exactly, and is canonical."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tilefit.formats.load import capture_from_json, parse_json
from tilefit.formats.save import capture_text
from tilefit.model.capture import Capture, Conflict, Memory, Range, Request, Sequence

ids = st.text(alphabet="abcxyz_é0123", min_size=1, max_size=4)


@st.composite
def captures(draw: st.DrawFn) -> Capture:
    size = draw(st.integers(64, 4096))
    horizon = draw(st.integers(1, 50))
    cut = draw(st.integers(1, size - 1))
    ranges = (
        Range(0, cut, draw(st.none() | st.just("main"))),
        Range(cut, size, None, draw(st.none() | st.just(("scratch",)))),
    )
    elements = tuple(sorted(set(draw(st.lists(st.integers(1, size - 1), max_size=4))) | {0}))
    interleaved = draw(st.none() | st.integers(0, size))
    names = draw(st.lists(ids, min_size=0, max_size=8, unique=True))
    requests = []
    for name in names:
        start = draw(st.integers(0, horizon - 1))
        requests.append(
            Request(
                id=name,
                size=draw(st.integers(1, 64)),
                start=start,
                end=draw(st.integers(start + 1, horizon)),
                alignment=1,
                cls=draw(st.sampled_from(["default", "scratch", "resident"])),
                interleaved=draw(st.booleans()),
                label=draw(st.none() | st.text(max_size=5)),
            )
        )
    sequences: tuple[Sequence, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    if len(names) >= 3:
        sequences = (Sequence("SEQ!", (names[0], names[1]), draw(st.none() | st.just("r"))),)
        conflicts = (Conflict("SEQ!", names[2]),)
    return Capture(
        name=draw(ids),
        horizon=horizon,
        memory=Memory(size, ranges, elements, interleaved),
        requests=tuple(requests),
        sequences=sequences,
        conflicts=conflicts,
        production=draw(
            st.sampled_from([("size/best-fit",), ("lifetime/first-fit", "alignment/first-fit")])
        ),
        observed_failed=draw(st.none() | st.sampled_from(names or [None])),
        tile=draw(st.none() | st.integers(0, 1471)),
    )


@settings(max_examples=150, deadline=None)
@given(captures())
def test_round_trip(capture: Capture) -> None:
    text = capture_text(capture)
    again = capture_from_json(parse_json(text))
    assert again == capture
    assert capture_text(again) == text
