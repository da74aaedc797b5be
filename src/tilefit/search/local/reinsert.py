"""Ruin and recreate with the engine: the find member's ``reinsert`` route.

From a greedy pass's order with every unit that fits kept, repeatedly take an
unplaced unit and make room for it, in one of two ways:

- free a few placed units alive beside it (those nearest a random address it
  may use), then place it first, then them, then the other unplaced;
- evict: put it where it displaces the fewest bytes among a few of its valid
  bases, take out what it displaces, and place those again around it.

The fit is drawn at random. A move is kept when the bytes left unplaced do
not grow, so the search wanders along plateaus too. Every unit kept stands
at a valid offset given those placed before it (``tilefit.engine.attempt.fill``),
so an answer is a placement.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from tilefit.engine.attempt import Attempt, Fill, Prepared, fill
from tilefit.engine.fits import BEST_FIT, FIRST_FIT
from tilefit.model.capture import Capture
from tilefit.model.placement import Placement
from tilefit.model.units import Unit
from tilefit.search.local.contention import Features

EVICT_SHARE = 0.5
"""Of the moves, those that evict what stands where the unit goes."""

EVICT_CANDIDATES = 24
"""Valid bases sampled for an eviction; the one displacing the fewest bytes wins."""

WINDOW = 24
"""At most this many placed units freed beside the unit in a move that is not an eviction."""


def reinsert(
    prepared: Prepared,
    features: Features,
    attempt: Attempt,
    rng: random.Random,
    deadline: float,
    stop: Callable[[], bool] | None,
) -> dict[str, int] | None:
    """Unit id -> base for every unit, or None when ``deadline`` comes first."""
    order = [u for u in features.units if u.id in set(attempt.placed)]
    if attempt.failure is not None:
        order.append(attempt.failure.unit)
    placed = set(attempt.placed)
    order += [u for u in features.units if u.id not in placed and u not in order]
    fits = (FIRST_FIT, BEST_FIT)
    current = fill(prepared, {}, order, FIRST_FIT)
    missing = sum(u.size for u in current.unplaced)
    sizes = {u.id: u for u in features.units}
    while current.unplaced:
        if time.monotonic() >= deadline or (stop is not None and stop()):
            return None
        unit = current.unplaced[rng.randrange(len(current.unplaced))]
        if rng.random() < EVICT_SHARE:
            trial = _evict(prepared, features, current, unit, rng)
            lost = sum(u.size for u in trial.unplaced)
            if lost <= missing:
                current, missing = trial, lost
            continue
        beside = [
            v for v in current.bases if sizes[v].start < unit.end and unit.start < sizes[v].end
        ]
        reach = features.reach[features.index[unit.id]] or ((0, 0),)
        anchor = rng.choice(reach)
        address = rng.randint(anchor[0], anchor[1])
        beside.sort(key=lambda v: abs(current.bases[v] + sizes[v].size // 2 - address))
        window = beside[: rng.randint(1, max(1, min(WINDOW, len(beside))))]
        rng.shuffle(window)
        fixed = {v: b for v, b in current.bases.items() if v not in set(window)}
        rest = [u for u in current.unplaced if u.id != unit.id]
        trial = fill(prepared, fixed, [unit, *(sizes[v] for v in window), *rest], rng.choice(fits))
        lost = sum(u.size for u in trial.unplaced)
        if lost <= missing:
            current, missing = trial, lost
    return current.bases


def _evict(
    prepared: Prepared, features: Features, current: Fill, unit: Unit, rng: random.Random
) -> Fill:
    """Put ``unit`` where it displaces the fewest bytes among a few of its valid bases,
    take out what it displaces, and place those again around it."""
    units = features.by_id
    block = features.index[unit.id]
    residue, modulus = features.congruence[block]
    if not features.reach[block]:  # no valid base at all
        return current
    candidates: set[int] = set()
    for _ in range(EVICT_CANDIDATES):
        lo, hi = rng.choice(features.reach[block])
        x = rng.randint(lo, hi)
        x += (residue - x) % modulus
        if x <= hi:
            candidates.add(x)
    if not candidates:
        return current
    scored = []
    for x in sorted(candidates):
        out = _displaced(prepared, features, current.bases, unit, x)
        scored.append((sum(units[v].size for v in out), rng.random(), x, out))
    _, _, base, out = min(scored)
    fixed = {v: b for v, b in current.bases.items() if v not in out}
    fixed[unit.id] = base
    again = sorted((units[v] for v in out), key=lambda u: -u.size)
    rest = [u for u in current.unplaced if u.id != unit.id]
    return fill(prepared, fixed, [*again, *rest], rng.choice((FIRST_FIT, BEST_FIT)))


def _displaced(
    prepared: Prepared, features: Features, bases: dict[str, int], unit: Unit, base: int
) -> set[str]:
    """The placed units that ``unit`` at ``base`` would overlap or share an element with."""
    units = features.by_id
    out: set[str] = set()
    for v, at in bases.items():
        other = units[v]
        if other.start >= unit.end or unit.start >= other.end:
            continue
        for m, mo in zip(unit.members, unit.offsets, strict=True):
            lo = base + mo
            if any(
                m.start < q.end
                and q.start < m.end
                and lo < at + qo + q.size
                and at + qo < lo + m.size
                for q, qo in zip(other.members, other.offsets, strict=True)
            ):
                out.add(v)
                break
    constraints = prepared.constraints
    for m, mo in zip(unit.members, unit.offsets, strict=True):
        partners = constraints.partners.get(m.id, ())
        if not partners:
            continue
        mine = constraints.element_span(base + mo, base + mo + m.size)
        for partner in partners:
            v, offset = features.unit_of[partner]
            if v not in bases or v == unit.id:
                continue
            at = bases[v] + offset
            theirs = constraints.element_span(at, at + prepared.capture.request_by_id[partner].size)
            if mine[0] < theirs[1] and theirs[0] < mine[1]:
                out.add(v)
    return out


def placement_of_units(capture: Capture, prepared: Prepared, bases: dict[str, int]) -> Placement:
    offsets: dict[str, int] = {}
    for unit in prepared.units:
        for member, offset in zip(unit.members, unit.offsets, strict=True):
            offsets[member.id] = bases[unit.id] + offset
    return Placement(capture.name, {r.id: offsets[r.id] for r in capture.requests})
