"""Orders sort units by their spec'd keys, ties in capture order."""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from tilefit.engine.orders import (
    ALIGNMENT,
    LIFETIME,
    LONG_LIVED,
    ORDERS,
    RESIDENT_FIRST,
    SIZE,
    Order,
    parse_order,
    weighted,
)
from tilefit.model.capture import Capture, Memory, Range, Request, Sequence
from tilefit.model.units import Unit, units

HORIZON = 10


def units_of(*requests: Request, sequences: tuple[Sequence, ...] = ()) -> tuple[Unit, ...]:
    memory = Memory(1 << 20, (Range(0, 1 << 20),))
    return units(Capture("orders", HORIZON, memory, requests, sequences))


def ids(order_name: str, found: tuple[Unit, ...]) -> list[str]:
    return [u.id for u in parse_order(order_name).sort(found, HORIZON)]


UNITS = units_of(
    Request("small-aligned", 16, 3, 5, alignment=32),
    Request("big", 100, 0, 10),  # lives until the horizon
    Request("mid-early", 40, 0, 4, alignment=4, cls="resident"),
    Request("mid-late", 40, 6, 10, alignment=8),  # ends at the horizon
    Request("tiny", 8, 1, 2, alignment=8, cls="resident"),
)


def test_alignment_descending_then_size() -> None:
    assert ids("alignment", UNITS) == ["small-aligned", "mid-late", "tiny", "mid-early", "big"]


def test_lifetime_start_ascending_then_size() -> None:
    assert ids("lifetime", UNITS) == ["big", "mid-early", "tiny", "small-aligned", "mid-late"]


def test_size_descending() -> None:
    assert ids("size", UNITS) == ["big", "mid-early", "mid-late", "small-aligned", "tiny"]


def test_weighted_orders_trade_size_against_alignment() -> None:
    # size x alignment^w, e.g. at w = 0.5: mid-late 113.1, big 100, small-aligned 90.5,
    # mid-early 80, tiny 22.6.
    assert ids("weighted:0.5", UNITS) == ["mid-late", "big", "small-aligned", "mid-early", "tiny"]
    # 512, 320, 160, 100, 64
    assert ids("weighted:1", UNITS) == ["small-aligned", "mid-late", "mid-early", "big", "tiny"]
    # 16384, 2560, 640, 512, 100
    assert ids("weighted:2", UNITS) == ["small-aligned", "mid-late", "mid-early", "tiny", "big"]
    assert ids("weighted:0", UNITS) == ids("size", UNITS)


def test_long_lived_first_then_size() -> None:
    assert ids("long-lived", UNITS) == ["big", "mid-late", "mid-early", "small-aligned", "tiny"]


def test_resident_first_then_size() -> None:
    assert ids("resident-first", UNITS) == ["mid-early", "tiny", "big", "mid-late", "small-aligned"]


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.name)
def test_ties_go_to_capture_order_whatever_the_input_order(order: object) -> None:
    same = units_of(*(Request(f"r{k}", 8, 0, HORIZON) for k in range(6)))
    shuffled = list(same)
    random.Random(1).shuffle(shuffled)
    assert [u.id for u in order.sort(shuffled, HORIZON)] == [f"r{k}" for k in range(6)]  # type: ignore[attr-defined]


def test_a_sequence_orders_by_its_summed_size_and_hull_lifetime() -> None:
    found = units_of(
        Request("alone", 10, 1, 3),
        Request("m1", 6, 2, 4),
        Request("m2", 6, 0, 10),
        sequences=(Sequence("S", ("m1", "m2")),),
    )
    assert ids("size", found) == ["S", "alone"]  # 12 > 10
    assert ids("lifetime", found) == ["S", "alone"]  # starts at 0 through m2
    assert ids("long-lived", found) == ["S", "alone"]  # ends at the horizon through m2


def test_the_matrix_has_eight_orders_in_the_documented_sequence() -> None:
    assert [o.name for o in ORDERS] == [
        "alignment",
        "lifetime",
        "size",
        "weighted:0.5",
        "weighted:1",
        "weighted:2",
        "long-lived",
        "resident-first",
    ]


def test_weights_are_spelled_canonically() -> None:
    assert parse_order("weighted:1.0").name == "weighted:1"
    assert parse_order("weighted:0.50").name == "weighted:0.5"
    assert parse_order("weighted:0.25").name == "weighted:0.25"
    assert weighted(Fraction(3, 2)).name == "weighted:1.5"


@pytest.mark.parametrize(
    "name", ["", "sizes", "weighted:", "weighted:x", "weighted:-1", "weighted:17", "weighted:1e3"]
)
def test_unknown_orders_are_refused_with_a_reason(name: str) -> None:
    with pytest.raises(ValueError, match=r"order|weight"):
        parse_order(name)


@dataclass(frozen=True)
class _Columns:
    sizes: NDArray[Any]
    alignments: NDArray[Any]
    starts: NDArray[Any]
    ends: NDArray[Any]


def _ranked_and_sorted(order: Order, seed: int, one_alignment: bool) -> tuple[list[int], list[int]]:
    """An order's numpy ranking and its one-by-one sort, on a capture of many ties."""
    rng = random.Random(seed)
    horizon = 12
    requests = []
    for k in range(rng.randrange(1, 60)):
        start = rng.randrange(horizon)
        end = horizon if rng.random() < 0.3 else rng.randrange(start + 1, horizon + 1)
        align = 4 if one_alignment else rng.choice((1, 2, 8, 64))
        requests.append(Request(f"r{k}", rng.choice((8, 16, 24, 64, 96)), start, end, align))
    capture = Capture("c", horizon, Memory(1 << 20, (Range(0, 1 << 20),)), tuple(requests))
    columns = _Columns(
        *(
            np.array([getattr(r, f) for r in requests])
            for f in ("size", "alignment", "start", "end")
        )
    )
    ranked = order.ranked(columns, horizon)
    assert ranked is not None
    return ranked.tolist(), [u.index for u in order.sort(units(capture), horizon)]


@pytest.mark.parametrize(
    "order", [ALIGNMENT, LIFETIME, SIZE, LONG_LIVED, *(weighted(Fraction(w, 4)) for w in (1, 4, 9))]
)
def test_numpy_ranks_as_the_sort_does(order: Order) -> None:
    for seed in range(200):
        # A weighted order has columns only where one alignment is shared (below).
        ranked, by_sort = _ranked_and_sorted(order, seed, order.name.startswith("weighted"))
        assert ranked == by_sort
    # The comparison can fail: another order's ranking differs from this one's sort.
    other = LIFETIME if order is not LIFETIME else SIZE
    assert any(
        _ranked_and_sorted(other, seed, True)[0] != _ranked_and_sorted(order, seed, True)[1]
        for seed in range(20)
    )


def test_weighted_orders_sort_one_by_one_where_alignments_differ() -> None:
    columns = _Columns(*(np.array(v) for v in ([8, 8], [1, 2], [0, 0], [1, 1])))
    assert weighted(Fraction(1)).ranked(columns, 1) is None
    assert RESIDENT_FIRST.ranked(columns, 1) is None


@pytest.mark.parametrize("weight", [Fraction(1, 2), Fraction(1), Fraction(2)])
def test_the_matrix_weighted_orders_are_what_weighted_makes(weight: Fraction) -> None:
    # The matrix spells its three weights itself, so that loading the orders loads
    # neither fractions nor decimal: each is the order weighted() makes of that weight.
    from types import SimpleNamespace

    made = weighted(weight)
    built = parse_order(made.name)
    assert built in ORDERS and built.name == made.name
    for size, alignment in [(96, 32), (100, 4), (7, 1), (4096, 256)]:
        unit = SimpleNamespace(size=size, alignment=alignment)
        assert built.key(unit, 10) == made.key(unit, 10)  # type: ignore[arg-type]
    columns = SimpleNamespace(sizes=np.array([3, 1]), alignments=np.array([4, 4]))
    assert [c.tolist() for c in built.columns(columns, 1)] == [  # type: ignore[misc,arg-type]
        c.tolist()
        for c in made.columns(columns, 1)  # type: ignore[misc,arg-type]
    ]
