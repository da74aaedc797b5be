"""Orders: the sequence in which a strategy places units.

An order is a name and a sort key; keys sort ascending and ties always go to
capture order (``Unit.index``). A new order is one ``Order(...)`` line and, if
it should join the experiment matrix, one entry in ``ORDERS``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from fractions import Fraction

    from numpy.typing import NDArray

from tilefit.model.units import Unit

SortKey = Callable[[Unit, int], tuple[int, ...]]
"""A unit's sort key, given the capture's horizon; ascending, so negate for "descending"."""


class Columns(Protocol):
    """A capture's requests as arrays in capture order (``UniformArrays`` is one)."""

    @property
    def sizes(self) -> NDArray[Any]: ...
    @property
    def alignments(self) -> NDArray[Any]: ...
    @property
    def starts(self) -> NDArray[Any]: ...
    @property
    def ends(self) -> NDArray[Any]: ...


ColumnKey = Callable[[Columns, int], "list[NDArray[Any]] | None"]
"""The same key as numpy columns, most significant first, for a capture of one unit per
request; None where the columns would not sort exactly as the key does."""

RESIDENT_CLASS = "resident"
WEIGHTED_PREFIX = "weighted:"
# size**q * alignment**p grows fast; a weight past this says nothing new and costs a lot.
MAX_WEIGHT = 16
MAX_WEIGHT_DENOMINATOR = 1000


@dataclass(frozen=True, slots=True)
class Order:
    """The order in which a strategy places the units."""

    name: str
    key: SortKey
    columns: ColumnKey | None = None
    by_start: bool = False  # its key sorts by start first: a uniform capture's fits are the sweep

    def sort(self, units: Iterable[Unit], horizon: int) -> tuple[Unit, ...]:
        key = self.key
        # A stable sort of units in capture order leaves ties in capture order.
        in_capture_order = sorted(units, key=_index)
        return tuple(sorted(in_capture_order, key=lambda u: key(u, horizon)))

    def ranked(self, requests: Columns, horizon: int) -> NDArray[Any] | None:
        """The positions in capture order of a capture of one unit per request, in the
        order ``sort`` gives (numpy's sort is stable: ties stay in capture order); None
        when this order has no exact columns for it."""
        keys = None if self.columns is None else self.columns(requests, horizon)
        if keys is None:
            return None
        import numpy as np  # only here: orders are imported by commands that never sort

        return np.lexsort(keys[::-1]).astype(np.int64)


def _index(unit: Unit) -> int:
    return unit.index


def _decimal_text(weight: Fraction) -> str:
    # Canonical spelling, so "weighted:1.0" and "weighted:1" name the same strategy.
    from decimal import Decimal  # only for a weight not among ORDERS' (2 ms with fractions)

    text = format(Decimal(weight.numerator) / Decimal(weight.denominator), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def weighted(weight: Fraction) -> Order:
    """size x alignment^w descending, compared exactly: size^q x alignment^p for w = p/q."""
    return _weighted(weight.numerator, weight.denominator, _decimal_text(weight))


def _weighted(p: int, q: int, said: str) -> Order:
    """``weighted`` of the weight p/q, whose decimal spelling is ``said``."""
    name = WEIGHTED_PREFIX + said

    def columns(c: Columns, h: int) -> list[NDArray[Any]] | None:
        # size^q is ordered as size is; one alignment everywhere scales every key alike.
        return [-c.sizes] if len(c.alignments) and (c.alignments == c.alignments[0]).all() else None

    return Order(name, lambda u, h: (-(u.size**q) * u.alignment**p,), columns)


ALIGNMENT = Order(
    "alignment", lambda u, h: (-u.alignment, -u.size), lambda c, h: [-c.alignments, -c.sizes]
)
LIFETIME = Order(
    "lifetime", lambda u, h: (u.start, -u.size), lambda c, h: [c.starts, -c.sizes], by_start=True
)
SIZE = Order("size", lambda u, h: (-u.size,), lambda c, h: [-c.sizes])
LONG_LIVED = Order(
    "long-lived",
    lambda u, h: (0 if u.end == h else 1, -u.size),
    lambda c, h: [c.ends != h, -c.sizes],
)
RESIDENT_FIRST = Order(
    "resident-first", lambda u, h: (0 if u.cls == RESIDENT_CLASS else 1, -u.size)
)

ORDERS: tuple[Order, ...] = (
    ALIGNMENT,
    LIFETIME,
    SIZE,
    _weighted(1, 2, "0.5"),  # weighted(Fraction(1, 2)), without loading fractions
    _weighted(1, 1, "1"),
    _weighted(2, 1, "2"),
    LONG_LIVED,
    RESIDENT_FIRST,
)
"""The orders of the experiment matrix, in the order the table lists them."""

_BY_NAME = {order.name: order for order in ORDERS}


def parse_order(text: str) -> Order:
    """The order named ``text``; ``weighted:W`` takes any decimal weight 0 <= W <= 16."""
    order = _BY_NAME.get(text)
    if order is not None:
        return order
    if text.startswith(WEIGHTED_PREFIX):
        return weighted(_weight(text[len(WEIGHTED_PREFIX) :]))
    known = ", ".join(_BY_NAME)
    raise ValueError(f"unknown order {text!r} (known: {known}, or weighted:W)")


def _weight(text: str) -> Fraction:
    from decimal import Decimal, InvalidOperation
    from fractions import Fraction

    try:
        value = Decimal(text)
    except InvalidOperation:
        value = Decimal("NaN")
    if not value.is_finite() or not text.replace(".", "", 1).isdigit():
        raise ValueError(f"weight {text!r} is not a decimal number like 0.5 or 2")
    weight = Fraction(value)
    if weight > MAX_WEIGHT or weight.denominator > MAX_WEIGHT_DENOMINATOR:
        raise ValueError(f"weight {text!r} must be at most {MAX_WEIGHT} with at most 3 decimals")
    return weight
