"""How hard each unit is to place, and the constraint-aware orders built from it.

Most constrained first: a unit whose valid bases reach little of the memory
(class-only ranges, the interleaved region, large alignment), with a large
area (size x lifetime), long-lived, with many conflict partners, or a
sequence whose members live at different steps goes early. The heuristic
layer takes these orders first as they are, then perturbed at random.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from tilefit.engine.attempt import Prepared
from tilefit.engine.fits import BEST_FIT, FIRST_FIT
from tilefit.engine.orders import Order
from tilefit.engine.strategy import Strategy
from tilefit.model.units import Unit
from tilefit.search.blocks import SearchModel


@dataclass(frozen=True)
class Features:
    """Per unit: how hard it is to place, for the constraint-aware orders."""

    units: tuple[Unit, ...]
    room: tuple[int, ...]  # bytes of its allowed bases' reach
    partners: tuple[int, ...]
    pinned: frozenset[int]
    horizon: int

    @classmethod
    def of(cls, model: SearchModel, prepared: Prepared) -> Features:
        room = tuple(sum(hi - lo + 1 for lo, hi in b.bases) + b.size for b in model.blocks)
        partners = [0] * len(model.blocks)
        for edge in model.edges:
            partners[edge.a.block] += 1
            partners[edge.b.block] += 1
        by_id = {u.id: u for u in prepared.units}
        ordered = tuple(by_id[b.id] for b in model.blocks)  # per unit, in the model's order
        return cls(
            ordered,
            room,
            tuple(partners),
            frozenset(model.pinned),
            prepared.capture.horizon,
        )

    def strategy(self, round_: int, rng: random.Random) -> Strategy:
        """The greedy pass of one round: fixed orders first, then perturbed ones."""
        keys = self._keys()
        name, score = keys[round_ % len(keys)]
        fit = FIRST_FIT if (round_ // len(keys)) % 2 == 0 else BEST_FIT
        if round_ >= 2 * len(keys):
            noise = [math.exp(rng.gauss(0.0, 0.6)) for _ in self.units]
            values = [score[i] * noise[i] for i in range(len(self.units))]
            name = f"{name}~{round_}"
        else:
            values = list(score)
        by_value = sorted(range(len(self.units)), key=lambda i: (-values[i], i))
        rank = {self.units[i].id: r for r, i in enumerate(by_value)}
        return Strategy(Order(name, lambda u, h: (rank[u.id],)), fit)

    def _keys(self) -> Sequence[tuple[str, Sequence[float]]]:
        h = max(self.horizon, 1)
        units = self.units
        area = [u.size * _held(u, h) / h for u in units]
        tight = [u.size / max(r, 1) for u, r in zip(units, self.room, strict=True)]
        extra = [
            1.0 + 0.5 * p + (1.0 if k in self.pinned else 0.0) + (1.0 if u.end == h else 0.0)
            for k, (u, p) in enumerate(zip(units, self.partners, strict=True))
        ]
        return (
            ("constrained", [a * t * e for a, t, e in zip(area, tight, extra, strict=True)]),
            ("area", area),
            ("contention", [a * e for a, e in zip(area, extra, strict=True)]),
            ("tight", [t * e for t, e in zip(tight, extra, strict=True)]),
        )


def _held(unit: Unit, horizon: int) -> int:
    """The steps a unit is live: on a circle a wrapping one holds ``[start, horizon)`` and
    ``[0, end)``."""
    return unit.end - unit.start if unit.start < unit.end else horizon - unit.start + unit.end
