"""Strategies: an order composed with a fit, named ``ORDER/FIT``; and production
allocators replayed whole from a capture's ``allocator`` inputs, named as registered
(``tilefit.engine.production``: ``tpumlir``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tilefit.engine.fits import FITS, Fit, parse_fit
from tilefit.engine.orders import ORDERS, Order, parse_order


@dataclass(frozen=True, slots=True)
class Strategy:
    """An order composed with a fit, named ``ORDER/FIT``."""

    order: Order
    fit: Fit

    @property
    def name(self) -> str:
        return format_strategy(self)


@dataclass(frozen=True, slots=True)
class Replaying:
    """A production allocator replayed whole from the capture's ``allocator`` inputs, not
    one unit at a time by an order and a fit (``tilefit.engine.production``)."""

    name: str


Placer = Strategy | Replaying
"""What a production attempt runs: a strategy, or an allocator replayed."""


def as_placers(items: Iterable[Placer | str]) -> tuple[Placer, ...]:
    """Strategies and production allocators, by name (``ORDER/FIT`` or a registered
    allocator's); ValueError for an unknown one."""
    return tuple(_placer(item) for item in items)


def _placer(item: Placer | str) -> Placer:
    if isinstance(item, Strategy | Replaying):
        return item
    if "/" in item:  # ORDER/FIT: no allocator's name has a slash, and its registry loads
        return parse_strategy(item)  # TPU-MLIR's allocator inputs (2 ms) only when asked
    from tilefit.engine.production import ALLOCATORS

    return Replaying(item) if item in ALLOCATORS else parse_strategy(item)


def format_strategy(strategy: Strategy) -> str:
    return f"{strategy.order.name}/{strategy.fit.name}"


def parse_strategy(text: str) -> Strategy:
    """The strategy named ``ORDER/FIT``, e.g. ``long-lived/first-fit``; ValueError if unknown."""
    order, slash, fit = text.strip().partition("/")
    if not slash:
        raise ValueError(f"strategy {text!r} is not ORDER/FIT, e.g. lifetime/first-fit")
    return Strategy(parse_order(order), parse_fit(fit))


def parse_strategies(text: str) -> tuple[Strategy, ...]:
    """A comma-separated list of strategy names, in the order given."""
    names = [part for part in text.split(",") if part.strip()]
    if not names:
        raise ValueError("no strategy given; name one as ORDER/FIT, e.g. lifetime/first-fit")
    return tuple(parse_strategy(name) for name in names)


def as_strategies(items: Iterable[Strategy | str]) -> tuple[Strategy, ...]:
    """Strategies by name (``ORDER/FIT``); ValueError for an unknown one."""
    return tuple(item if isinstance(item, Strategy) else parse_strategy(item) for item in items)


STRATEGIES: tuple[Strategy, ...] = tuple(Strategy(order, fit) for order in ORDERS for fit in FITS)
"""The experiment matrix: every order with every fit, 8 x 2 = 16 strategies."""
