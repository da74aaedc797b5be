"""Fast placements where they exist: the layer between the strategies and the exact search.

Each round r (deterministic for a seed) tries, with node allowances that
double from round to round:

1. the **rigid restriction** (``tilefit.search.bracket``) with the canonical
   kernel: every answer is a placement of the capture;
2. a **greedy pass** in a constraint-aware order (most constrained first:
   little allowed space, large area, long-lived, many conflict partners,
   sequences), the first rounds in fixed orders, later ones perturbed at
   random; a pass that fits is an answer;
3. **completion** of the pass: the blocks the kernel cannot take as free
   (pinned: sequences with per-member lifetimes, conflict sides inside a
   sequence) stay where the pass put them, and the kernel searches every
   other block exactly around them;
4. **segments**: the same blocks stay, the others are assigned to the
   stretches of memory between reserved gaps and each stretch is searched
   alone (``tilefit.search.segments``);
5. **reinsert**: ruin and recreate with the engine (and eviction moves);
6. **repair** of the pass: every block it placed stays, except those alive
   beside the unit it failed on (nearest first in address, a window that
   grows with r); the kernel re-places that window with the units left over.

Nothing here proves infeasibility: a round that ends without a placement only
says this route found none.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tilefit.engine.attempt import Attempt, Fill, Prepared, fill, run_strategy
from tilefit.engine.fits import BEST_FIT, FIRST_FIT
from tilefit.engine.orders import Order
from tilefit.engine.strategy import Strategy
from tilefit.model.capture import Capture
from tilefit.model.placement import Placement
from tilefit.model.units import Unit
from tilefit.search.bracket import rigid_restriction
from tilefit.search.model import Model, build_model
from tilefit.search.segments import Assigner
from tilefit.search.solver import SOLVED, Budget, _search_free, placement_of, search

FIRST_NODES = 2_000
"""The kernel's node allowance per call in round 0; it doubles every round."""

EVICT_SHARE = 0.5
"""Of the reinsertion moves, those that evict what stands where the unit goes."""

EVICT_CANDIDATES = 24
"""Valid bases sampled for an eviction; the one displacing the fewest bytes wins."""

REINSERT_SECONDS = 0.3
"""Time for the reinsertion route the first time; every third round it gets more."""

WINDOW = 24
"""Blocks unplaced around the failing unit in round 0; the window grows with the rounds."""


@dataclass(frozen=True)
class Found:
    """What the heuristic layer found, and how."""

    placement: Placement | None
    route: str | None  # "restriction", "greedy", "completion" or "repair"
    rounds: int
    seconds: float


def find_placement(
    capture: Capture,
    time_limit: float,
    *,
    seed: int = 0,
    stop: Callable[[], bool] | None = None,
) -> Found:
    """A placement of every request, found by the routes above within ``time_limit``."""
    started = time.monotonic()
    deadline = started + time_limit
    model = build_model(capture)
    prepared = Prepared.of(capture)
    features = Features.of(model, prepared)
    pinned = model.pinned
    restriction = rigid_restriction(model) if pinned else None
    rng = random.Random(seed)
    segments = Assigner.of(model, capture.memory)

    def over() -> bool:
        return time.monotonic() >= deadline or (stop is not None and stop())

    def found(placement: Placement, route: str, rounds: int) -> Found:
        return Found(placement, route, rounds, time.monotonic() - started)

    rounds = 0
    while not over():
        nodes = FIRST_NODES << min(rounds, 20)
        if restriction is not None:
            outcome = search(restriction, _budget(deadline, nodes))
            if outcome.status == SOLVED and outcome.bases is not None:
                return found(placement_of(capture, model, outcome.bases), "restriction", rounds)
        attempt = run_strategy(prepared, features.strategy(rounds, rng))
        if attempt.fits and attempt.placement is not None:
            return found(attempt.placement, "greedy", rounds)
        at = _bases(model, attempt)
        fixed = {k: at[k] for k in pinned if k in at}
        if pinned and not over():
            bases = _complete(model, fixed, deadline, nodes)
            if bases is not None:
                return found(placement_of(capture, model, bases), "completion", rounds)
        if rounds % 3 == 1 and not over():  # the cheap routes above win most: these less often
            bases = segments.solve(fixed, rng, deadline, nodes)
            if bases is not None:
                return found(placement_of(capture, model, bases), "segments", rounds)
        if rounds % 3 == 2 and not over():
            slice_end = min(deadline, time.monotonic() + REINSERT_SECONDS * (rounds // 3 + 1))
            by_unit = _reinsert(prepared, features, attempt, rng, slice_end, stop)
            if by_unit is not None:
                return found(_placement(capture, prepared, by_unit), "reinsert", rounds)
        if not over():
            window = _window(model, attempt, at, WINDOW << min(rounds // 2, 8))
            fixed = {k: b for k, b in at.items() if k not in window}
            bases = _complete(model, fixed, deadline, nodes)
            if bases is not None:
                return found(placement_of(capture, model, bases), "repair", rounds)
        rounds += 1
    return Found(None, None, rounds, time.monotonic() - started)


def _reinsert(
    prepared: Prepared,
    features: Features,
    attempt: Attempt,
    rng: random.Random,
    deadline: float,
    stop: Callable[[], bool] | None,
) -> dict[str, int] | None:
    """Ruin and recreate with the engine: unit id -> base for every unit, or None.

    From the pass's order with every unit that fits kept, repeatedly take an
    unplaced unit, free a few placed units alive beside it (those nearest a
    random address it may use), and place it first, then them, then the other
    unplaced, with a fit drawn at random. A move is kept when the bytes left
    unplaced do not grow, so the search wanders along plateaus too.
    """
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


def _placement(capture: Capture, prepared: Prepared, bases: dict[str, int]) -> Placement:
    offsets: dict[str, int] = {}
    for unit in prepared.units:
        for member, offset in zip(unit.members, unit.offsets, strict=True):
            offsets[member.id] = bases[unit.id] + offset
    return Placement(capture.name, {r.id: offsets[r.id] for r in capture.requests})


def _budget(deadline: float, nodes: int) -> Budget:
    return Budget(max(0.0, deadline - time.monotonic()), nodes)


def _bases(model: Model, attempt: Attempt) -> dict[int, int]:
    """Model block index -> base, for every block the attempt placed."""
    out: dict[int, int] = {}
    for k, block in enumerate(model.blocks):
        first = block.pieces[0]
        offset = attempt.offsets.get(first.request)
        if offset is not None:
            out[k] = offset - first.offset
    return out


def _complete(
    model: Model, fixed: dict[int, int], deadline: float, nodes: int
) -> dict[int, int] | None:
    """Bases for every block, with ``fixed`` kept where they are and the rest searched.

    The blocks searched are made rigid among themselves (``rigid_restriction``
    with the fixed ones exact), which only asks more: every answer is valid.
    """
    free = [k for k in range(len(model.blocks)) if k not in fixed]
    outcome = _search_free(rigid_restriction(model, fixed), free, fixed, _budget(deadline, nodes))
    return outcome.bases if outcome.status == SOLVED else None


def _window(model: Model, attempt: Attempt, at: dict[int, int], size: int) -> set[int]:
    """The unplaced blocks and those alive beside the failing unit, nearest its hole first."""
    failure = attempt.failure
    if failure is None:
        return set()
    unit = failure.unit
    holes = failure.holes or ((0, model.top),)
    centre = (holes[0][0] + holes[0][1]) // 2  # the largest hole

    def distance(k: int) -> int:
        lo = at[k]
        hi = lo + model.blocks[k].size
        return 0 if lo <= centre < hi else min(abs(lo - centre), abs(hi - centre))

    near = sorted(
        (k for k in at if model.blocks[k].start < unit.end and unit.start < model.blocks[k].end),
        key=lambda k: (distance(k), k),
    )
    unplaced = {k for k in range(len(model.blocks)) if k not in at}
    return unplaced | set(near[:size])


@dataclass(frozen=True)
class Features:
    """Per unit: how hard it is to place, for the constraint-aware orders."""

    units: tuple[Unit, ...]
    index: dict[str, int]  # unit id -> its position in units
    reach: tuple[tuple[tuple[int, int], ...], ...]  # its valid bases, as closed intervals
    room: tuple[int, ...]  # bytes of its allowed bases' reach
    congruence: tuple[tuple[int, int], ...]  # its valid bases: x % modulus == residue
    by_id: dict[str, Unit]
    unit_of: dict[str, tuple[str, int]]  # request id -> its unit's id and its offset there
    partners: tuple[int, ...]
    pinned: frozenset[int]
    horizon: int

    @classmethod
    def of(cls, model: Model, prepared: Prepared) -> Features:
        room = tuple(sum(hi - lo + 1 for lo, hi in b.bases) + b.size for b in model.blocks)
        partners = [0] * len(model.blocks)
        for edge in model.edges:
            partners[edge.a.block] += 1
            partners[edge.b.block] += 1
        return cls(
            prepared.units,
            {u.id: k for k, u in enumerate(prepared.units)},
            tuple(b.bases for b in model.blocks),
            room,
            tuple((b.residue, b.modulus) for b in model.blocks),
            {u.id: u for u in prepared.units},
            {
                m.id: (u.id, o)
                for u in prepared.units
                for m, o in zip(u.members, u.offsets, strict=True)
            },
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
        area = [u.size * (u.end - u.start) / h for u in units]
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
