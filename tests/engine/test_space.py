"""A unit's free space: valid offsets per member lifetime, and the hull's holes."""

from __future__ import annotations

from tilefit.engine.constraints import Constraints
from tilefit.engine.fits import BEST_FIT
from tilefit.engine.occupancy import Occupancy
from tilefit.engine.space import UnitSpace
from tilefit.model.capture import Capture, Memory, Range, Request, Sequence
from tilefit.model.units import Unit, units

HORIZON = 10


def space_for(capture: Capture, placed: dict[str, int], unit_id: str) -> UnitSpace:
    found = units(capture)
    constraints = Constraints.of(capture, found)
    occupancy = Occupancy(HORIZON, 2)
    for request in capture.requests:
        if request.id in placed:
            lo = placed[request.id]
            occupancy.add(lo, lo + request.size, request.start, request.end)
    unit: Unit = next(u for u in found if u.id == unit_id)
    return UnitSpace(unit, constraints, occupancy, {})


# m1 lives early, m2 late; the early blocker sits at [0,8), the late one at [16,24).
CAPTURE = Capture(
    "s",
    HORIZON,
    Memory(40, (Range(0, 40),)),
    (
        Request("early", 8, 0, 3),
        Request("late", 8, 6, 9),
        Request("m1", 8, 0, 3),
        Request("m2", 8, 6, 9),
    ),
    sequences=(Sequence("S", ("m1", "m2")),),
)
PLACED = {"early": 0, "late": 16}


def test_each_member_avoids_only_what_lives_with_it() -> None:
    space = space_for(CAPTURE, PLACED, "S")
    # Base 0 puts m1 on the early blocker; base 8 puts m2 on the late one; base 16
    # puts m1 on [16,24), free early on, and m2 on [24,32).
    assert space.lowest(0) == 16
    assert space.lowest(17) == 17
    assert space.lowest(24) == 24  # the last base: m2 ends at the memory's end
    assert space.lowest(25) is None


def test_the_hull_holes_avoid_everything_alive_in_the_unit_lifetime() -> None:
    space = space_for(CAPTURE, PLACED, "S")
    assert space.holes() == [(8, 16), (24, 40)]
    # best-fit: [24,40) is the only hole that holds 16 bytes.
    assert BEST_FIT.choose(space) == 24


def test_best_fit_falls_back_to_the_lowest_offset_when_no_hull_hole_holds_the_unit() -> None:
    tight = Capture(
        "t",
        HORIZON,
        Memory(32, (Range(0, 32),)),
        CAPTURE.requests,
        sequences=CAPTURE.sequences,
    )
    space = space_for(tight, PLACED, "S")
    assert space.holes() == [(8, 16), (24, 32)]
    assert BEST_FIT.choose(space) == 16  # fits only by interleaving member lifetimes
