"""The fixed per-request facts: outside the allowed set, partners, memory elements."""

from __future__ import annotations

from tilefit.engine.constraints import UNBOUNDED, Constraints
from tilefit.model.capture import Capture, Conflict, Memory, Range, Request, Sequence
from tilefit.model.units import units

MEMORY = Memory(
    64,
    (Range(0, 16), Range(16, 32, classes=("scratch",)), Range(40, 64)),
    elements=(0, 16, 32, 48),
    interleaved_offset=48,
)
CAPTURE = Capture(
    "c",
    10,
    MEMORY,
    (
        Request("a", 4, 0, 5),
        Request("s", 4, 0, 5, cls="scratch"),
        Request("i", 4, 0, 5, interleaved=True),
        Request("m1", 4, 0, 5),
        Request("m2", 4, 5, 9),
    ),
    sequences=(Sequence("S", ("m1", "m2")),),
    conflicts=(Conflict("a", "S"), Conflict("m1", "m2")),
)


def constraints() -> Constraints:
    return Constraints.of(CAPTURE, units(CAPTURE))


def test_outside_is_the_complement_of_the_allowed_set_up_to_a_sentinel() -> None:
    outside = constraints().outside
    assert outside["a"] == ((16, 40), (64, UNBOUNDED))
    assert outside["s"] == ((32, 40), (64, UNBOUNDED))  # [0,32) joined for scratch
    assert outside["i"] == ((0, 48), (64, UNBOUNDED))


def test_a_sequence_in_a_conflict_stands_for_its_members() -> None:
    partners = constraints().partners
    assert partners["a"] == ("m1", "m2")
    assert partners["m1"] == ("a", "m2")
    assert partners["m2"] == ("a", "m1")
    assert "s" not in partners


def test_members_of_one_unit_in_conflict_are_listed_as_inner_pairs() -> None:
    assert constraints().inner == {"S": ((0, 1),)}


def test_element_spans_cover_every_element_touched() -> None:
    c = constraints()
    assert c.element_span(0, 4) == (0, 16)
    assert c.element_span(12, 20) == (0, 32)
    assert c.element_span(48, 64) == (48, 64)  # the last element ends at the memory size
    assert [c.element(x) for x in (0, 15, 16, 63)] == [0, 0, 1, 3]
