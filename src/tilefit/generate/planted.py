"""Hard tiles with a known answer: captures built around a planted valid placement.

Each available range's time x address rectangle ``[0, horizon) x [start, end)``
is cut into leaves by guillotine cuts (a time cut or an address cut, at
multiples of 8 or coarser, splitting the largest rectangle first). Every leaf
becomes a request, at its leaf's address in the planted placement, so at 100%
density every byte of every range is live at every step: the planted placement
is the only kind of answer there is, up to swaps. On top of the leaves:

* alignment: from the leaf's start address (the largest power of two up to
  64 dividing it), sometimes less;
* classes: a scratch-only host aperture holds only ``scratch``; elsewhere a
  leaf living ``[0, horizon)`` is ``resident``, one ending at the horizon an
  ``output``, a short small one ``scratch``, the rest ``activation``;
* interleaved: some leaves lying wholly above the interleaved offset;
* sequences: runs of 2-6 leaves stacked back to back in address, each member
  with its own, different lifetime;
* conflicts: pairs of leaves (and some leaf-sequence pairs) whose planted
  addresses touch disjoint sets of memory elements, mostly living together.

Then requests are removed at random (at steps above the target, then the
removed ones added back where they still fit) until the live peak is
``density`` times the available storage. A sequence only loses members at
its ends; one left with a single member becomes a plain request.

Everything is drawn from ``random.Random(recipe.seed)``: the same recipe gives
the same capture, byte for byte.

>>> capture, placement = planted_tile(PlantedRecipe(requests=600, density=0.95, seed=3))
"""

from __future__ import annotations

import heapq
import random
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

from tilefit.bounds.live import live_peak as peak_of
from tilefit.bounds.live import request_spans
from tilefit.model.capture import Capture, Conflict, Memory, Range, Request, Sequence
from tilefit.model.placement import Placement

TILE_BYTES = 262_144  # a first-generation IPU tile
INTERLEAVED_OFFSET = 131_072
ELEMENTS: tuple[int, ...] = (
    *range(0, INTERLEAVED_OFFSET, 16_384),  # eight 16 KiB elements
    *range(INTERLEAVED_OFFSET, TILE_BYTES, 32_768),  # four 32 KiB elements, interleaved
)
SCRATCH = "scratch"
RANGES: tuple[Range, ...] = (
    # Code and vertex state below 12,288; reserved gaps (control, exchange) in between.
    Range(12_288, 94_208, "low"),
    Range(98_304, 106_496, "host-aperture", (SCRATCH,)),
    Range(110_592, 196_608, "mid"),  # spans the interleaved offset
    Range(200_704, 258_048, "high"),
)
MEMORY = Memory(TILE_BYTES, RANGES, ELEMENTS, INTERLEAVED_OFFSET)

MIN_WIDTH = 64  # bytes: no leaf is narrower
ADDRESS_SCALE = 65_536  # bytes that weigh as much as the whole horizon when choosing a cut
GRAINS = (8, 64, 512, 4096)  # address cuts fall on multiples of one of these
GRAIN_WEIGHTS = (2, 3, 3, 2)
MAX_ALIGNMENT = 64
THINNING_TRIES = 20


@dataclass(frozen=True, slots=True)
class PlantedRecipe:
    """The knobs of one planted tile."""

    requests: int = 600  # about this many requests are left after thinning (300-1500)
    density: float = 0.95  # target live peak / available storage
    seed: int = 0
    horizon: int = 96
    resident_share: float = 0.15  # of each general range's bytes held for the whole horizon
    sequence_share: float = 0.2  # of the leaves, members of a sequence
    conflict_share: float = 0.04  # conflict edges per leaf
    interleaved_share: float = 0.4  # of the leaves wholly above the interleaved offset
    less_aligned_share: float = 0.25  # leaves whose alignment is below what their address allows
    tolerance: float = 0.005  # the density is met within this share of the available storage
    flat: bool = False  # thin until every step is near the target, not only the peak (harder)


@dataclass(frozen=True, slots=True)
class Leaf:
    lo: int
    hi: int
    start: int
    end: int
    aperture: bool


def planted_tile(recipe: PlantedRecipe) -> tuple[Capture, Placement]:
    """A capture and a valid placement of it, at the recipe's density."""
    if not 0 < recipe.density <= 1:
        raise ValueError(f"density {recipe.density} must lie in (0, 1]")
    rng = random.Random(recipe.seed)
    # Thinning removes requests, so cut more leaves than the requests wanted.
    leaves = _cut(rng, recipe, round(recipe.requests / recipe.density))
    requests = [_request(rng, recipe, k, leaf) for k, leaf in enumerate(leaves)]
    offsets = {r.id: leaf.lo for r, leaf in zip(requests, leaves, strict=True)}
    sequences = _sequences(rng, recipe, requests, leaves)
    conflicts = conflict_edges(rng, recipe, requests, leaves, sequences)
    return finish_tile(rng, recipe, "planted", requests, offsets, sequences, conflicts)


def finish_tile(
    rng: random.Random,
    recipe: PlantedRecipe,
    family: str,
    requests: list[Request],
    offsets: dict[str, int],
    sequences: list[Sequence],
    conflicts: list[Conflict],
) -> tuple[Capture, Placement]:
    """Thin a tile with a valid placement down to the recipe's density, then name it
    ``{family}-d{density}-n{requests}-s{seed}`` and put its requests in program order."""
    # A last removal can overshoot below the tolerance; thin again (a few tries) when it does.
    close = (recipe.density - recipe.tolerance) * MEMORY.available
    for _ in range(THINNING_TRIES):
        kept, kept_sequences, kept_conflicts = _thin(rng, recipe, requests, sequences, conflicts)
        if _peak(kept) >= close:
            break
    # Capture order follows program order (start step), ties drawn, never the address.
    draw = {r.id: rng.random() for r in kept}
    kept.sort(key=lambda r: (r.start, draw[r.id]))
    name = f"{family}-d{round(recipe.density * 100)}-n{recipe.requests}-s{recipe.seed}"
    capture = Capture(
        name=name,
        horizon=recipe.horizon,
        memory=MEMORY,
        requests=tuple(kept),
        sequences=tuple(kept_sequences),
        conflicts=tuple(kept_conflicts),
    )
    return capture, Placement(name, {r.id: offsets[r.id] for r in kept})


def live_peak(capture: Capture) -> int:
    """The most bytes live at one step (the live storage lower bound)."""
    return _peak(capture.requests)


def _peak(requests: Iterable[Request]) -> int:
    return peak_of(request_spans(requests))[0]


def density(capture: Capture) -> float:
    """Live peak over available storage."""
    return live_peak(capture) / capture.available


def contents(capture: Capture) -> dict[str, int]:
    """How much of each constraint kind a capture holds, for a benchmark's header."""
    return {
        "requests": len(capture.requests),
        "sequences": len(capture.sequences),
        "sequence members": sum(len(s.members) for s in capture.sequences),
        "conflicts": len(capture.conflicts),
        "interleaved": sum(q.interleaved for q in capture.requests),
        "aligned": sum(q.alignment > 1 for q in capture.requests),
        "long-lived": sum(q.end == capture.horizon for q in capture.requests),
        "classes": len({q.cls for q in capture.requests}),
        "class-only ranges": sum(r.classes is not None for r in capture.memory.ranges),
    }


def describe(capture: Capture) -> str:
    """One line: the counts of ``contents`` and the density."""
    parts = ", ".join(f"{v} {k}" for k, v in contents(capture).items())
    return f"{capture.name}: {parts}; density {density(capture):.1%}"


# --------------------------------------------------------------------------- leaves


def _cut(rng: random.Random, recipe: PlantedRecipe, count: int) -> list[Leaf]:
    """Guillotine-cut every range into about ``count`` leaves, the largest rectangle first."""
    horizon = recipe.horizon
    leaves: list[Leaf] = []
    heap: list[tuple[float, int, Leaf]] = []
    serial = 0  # ties in the heap go to insertion order, never to comparing leaves

    def push(leaf: Leaf) -> None:
        nonlocal serial
        weight = (leaf.hi - leaf.lo) / ADDRESS_SCALE * (leaf.end - leaf.start) / horizon
        heapq.heappush(heap, (-weight * rng.uniform(0.5, 1.5), serial, leaf))
        serial += 1

    for r in RANGES:
        aperture = r.classes is not None
        if aperture:
            push(Leaf(r.start, r.end, 0, horizon, True))
            continue
        for lo, hi, resident in _columns(rng, r, recipe.resident_share):
            if resident:  # held for the whole horizon: a leaf already
                leaves.append(Leaf(lo, hi, 0, horizon, False))
            else:
                push(Leaf(lo, hi, 0, horizon, False))
    while heap and len(leaves) + len(heap) < count:
        _, _, leaf = heapq.heappop(heap)
        halves = _split(rng, leaf, horizon)
        if halves is None:
            leaves.append(leaf)
        else:
            push(halves[0])
            push(halves[1])
    leaves.extend(leaf for _, _, leaf in sorted(heap))
    return leaves


def _columns(rng: random.Random, r: Range, share: float) -> list[tuple[int, int, bool]]:
    """Cut a range's addresses into free columns with resident columns between them."""
    widths: list[int] = []
    while sum(widths) < share * r.size:
        widths.append(64 * rng.randint(8, 96))
    free = r.size - sum(widths)
    cuts = sorted(64 * rng.randint(0, free // 64) for _ in widths)
    gaps = [b - a for a, b in zip([0, *cuts], [*cuts, free], strict=True)]
    out: list[tuple[int, int, bool]] = []
    at = r.start
    for k, gap in enumerate(gaps):
        if gap:
            out.append((at, at + gap, False))
            at += gap
        if k < len(widths):
            out.append((at, at + widths[k], True))
            at += widths[k]
    return out


def _split(rng: random.Random, leaf: Leaf, horizon: int) -> tuple[Leaf, Leaf] | None:
    width, steps = leaf.hi - leaf.lo, leaf.end - leaf.start
    can_time = steps >= 2
    can_address = width >= 2 * MIN_WIDTH
    if not can_time and not can_address:
        return None
    time_weight = steps / horizon
    address_weight = width / ADDRESS_SCALE
    if can_time and (
        not can_address or rng.random() * (time_weight + address_weight) < time_weight
    ):
        t = rng.randint(leaf.start + 1, leaf.end - 1)
        return (
            Leaf(leaf.lo, leaf.hi, leaf.start, t, leaf.aperture),
            Leaf(leaf.lo, leaf.hi, t, leaf.end, leaf.aperture),
        )
    lo, hi = leaf.lo + MIN_WIDTH, leaf.hi - MIN_WIDTH
    grain = rng.choices(GRAINS, GRAIN_WEIGHTS)[0]
    first, last = -(-lo // grain), hi // grain
    if first > last:  # no multiple of this grain inside: fall back to the finest
        grain, first, last = 8, -(-lo // 8), hi // 8
    cut = grain * rng.randint(first, last)
    return (
        Leaf(leaf.lo, cut, leaf.start, leaf.end, leaf.aperture),
        Leaf(cut, leaf.hi, leaf.start, leaf.end, leaf.aperture),
    )


def _request(rng: random.Random, recipe: PlantedRecipe, k: int, leaf: Leaf) -> Request:
    size = leaf.hi - leaf.lo
    alignment = min(MAX_ALIGNMENT, leaf.lo & -leaf.lo)
    if alignment > 1 and rng.random() < recipe.less_aligned_share:
        alignment >>= rng.randint(1, alignment.bit_length() - 1)
    if leaf.aperture:
        cls = SCRATCH
    elif leaf.end == recipe.horizon:
        cls = "resident" if leaf.start == 0 else "output"
    elif leaf.end - leaf.start <= 2 and size <= 4096:
        cls = SCRATCH
    else:
        cls = "activation"
    interleaved = leaf.lo >= INTERLEAVED_OFFSET and rng.random() < recipe.interleaved_share
    return Request(f"r{k:04d}", size, leaf.start, leaf.end, alignment, cls, interleaved)


# --------------------------------------------------------------------------- sequences, conflicts


def _sequences(
    rng: random.Random, recipe: PlantedRecipe, requests: list[Request], leaves: list[Leaf]
) -> list[Sequence]:
    """Runs of leaves stacked back to back in address, each with its own lifetime."""
    starting_at: dict[int, list[int]] = {}
    for k, leaf in enumerate(leaves):
        starting_at.setdefault(leaf.lo, []).append(k)
    used = [False] * len(leaves)
    wanted = recipe.sequence_share * len(leaves)
    members_total = 0
    out: list[Sequence] = []
    order = list(range(len(leaves)))
    rng.shuffle(order)
    for first in order:
        if members_total >= wanted:
            break
        if used[first]:
            continue
        chain = [first]
        lifetimes = {(leaves[first].start, leaves[first].end)}
        length = rng.randint(2, 6)
        while len(chain) < length:
            above = [
                j
                for j in starting_at.get(leaves[chain[-1]].hi, [])
                if not used[j] and (leaves[j].start, leaves[j].end) not in lifetimes
            ]
            if not above:
                break
            nxt = rng.choice(above)
            chain.append(nxt)
            lifetimes.add((leaves[nxt].start, leaves[nxt].end))
        if len(chain) < 2:
            continue
        for j in chain:
            used[j] = True
        members_total += len(chain)
        out.append(Sequence(f"s{len(out):03d}", tuple(requests[j].id for j in chain)))
    return out


def conflict_edges(
    rng: random.Random,
    recipe: PlantedRecipe,
    requests: list[Request],
    leaves: list[Leaf],
    sequences: list[Sequence],
) -> list[Conflict]:
    """Edges between sides whose planted bytes touch disjoint memory elements."""
    index = {r.id: k for k, r in enumerate(requests)}
    # A side: (id, lo, hi, start, end) over its planted bytes and lifetime hull.
    sides = [(r.id, lf.lo, lf.hi, lf.start, lf.end) for r, lf in zip(requests, leaves, strict=True)]
    for s in sequences:
        parts = [leaves[index[m]] for m in s.members]
        sides.append(
            (
                s.id,
                parts[0].lo,
                parts[-1].hi,
                min(p.start for p in parts),
                max(p.end for p in parts),
            )
        )
    wanted = round(recipe.conflict_share * len(leaves))
    edges: list[Conflict] = []
    seen: set[tuple[str, str]] = set()
    for _ in range(20 * wanted):
        if len(edges) >= wanted:
            break
        a = rng.choice(sides)
        # One edge in four names a sequence; most partners live at the same time.
        pool = sides[len(requests) :] if sequences and rng.random() < 0.25 else sides
        together = rng.random() < 0.8
        lo_a, hi_a = _elements(a[1], a[2])
        b = rng.choice(pool)
        for _ in range(50):
            lo_b, hi_b = _elements(b[1], b[2])
            apart = hi_a <= lo_b or hi_b <= lo_a
            if apart and (not together or (a[3] < b[4] and b[3] < a[4])):
                break
            b = rng.choice(pool)
        else:
            continue
        key = (min(a[0], b[0]), max(a[0], b[0]))
        if key not in seen:
            seen.add(key)
            edges.append(Conflict(a[0], b[0]))
    return edges


def _elements(lo: int, hi: int) -> tuple[int, int]:
    """Indices [first, last + 1) of the memory elements bytes [lo, hi) touch."""
    return bisect_right(ELEMENTS, lo) - 1, bisect_right(ELEMENTS, hi - 1)


# --------------------------------------------------------------------------- thinning


def _thin(
    rng: random.Random,
    recipe: PlantedRecipe,
    requests: list[Request],
    sequences: list[Sequence],
    conflicts: list[Conflict],
) -> tuple[list[Request], list[Sequence], list[Conflict]]:
    """Remove random requests until the live peak is the target; add back what still fits."""
    horizon = recipe.horizon
    target = int(recipe.density * MEMORY.available)
    by_id = {r.id: r for r in requests}
    live = [0] * horizon
    for r in requests:
        for t in range(r.start, r.end):
            live[t] += r.size
    present = dict.fromkeys(r.id for r in requests)  # ordered, unlike a set
    chains = {s.id: list(s.members) for s in sequences}
    owner = {m: s.id for s in sequences for m in s.members}
    removed: list[str] = []

    def take(ident: str, sign: int) -> None:
        r = by_id[ident]
        for t in range(r.start, r.end):
            live[t] += sign * r.size

    while max(live) > target:
        # Flat: only at steps above the target, so every step ends near it; else anywhere.
        if recipe.flat:
            step = rng.choice([t for t in range(horizon) if live[t] > target])
        else:
            step = by_id[rng.choice(list(present))].start
        # Removable: a plain request, or a member at either end of its sequence.
        candidates = [
            i
            for i in present
            if by_id[i].start <= step < by_id[i].end
            and (i not in owner or i in (chains[owner[i]][0], chains[owner[i]][-1]))
        ]
        if not candidates:  # only inner sequence members live here: drop a whole sequence
            inner = [i for i in present if by_id[i].start <= step < by_id[i].end]
            candidates = list(chains[owner[rng.choice(inner)]])
        else:
            candidates = [rng.choice(candidates)]
        for victim in candidates:
            del present[victim]
            take(victim, -1)
            if victim in owner:
                chains[owner[victim]].remove(victim)
            else:
                removed.append(victim)
    rng.shuffle(removed)
    close = target - recipe.tolerance * MEMORY.available
    for ident in removed:  # plain requests only: a sequence's ends have moved on
        if not recipe.flat and max(live) >= close:
            break
        r = by_id[ident]
        if max(live[r.start : r.end]) + r.size <= target:
            present[ident] = None
            take(ident, 1)

    alias: dict[str, str | None] = {}  # sequence id -> what now stands for it
    kept_sequences: list[Sequence] = []
    for s in sequences:
        chain = chains[s.id]
        if len(chain) >= 2:
            kept_sequences.append(Sequence(s.id, tuple(chain)))
            alias[s.id] = s.id
        else:  # one member left is a plain request; none left, nothing
            alias[s.id] = chain[0] if chain else None
    kept_conflicts: list[Conflict] = []
    seen: set[tuple[str, str]] = set()
    for edge in conflicts:
        # A side is a sequence (now its id, its last member, or nothing) or a request.
        a = alias.get(edge.a, edge.a if edge.a in present else None)
        b = alias.get(edge.b, edge.b if edge.b in present else None)
        if a is None or b is None:
            continue
        key = (min(a, b), max(a, b))
        if key not in seen:
            seen.add(key)
            kept_conflicts.append(Conflict(a, b))
    return [by_id[i] for i in present], kept_sequences, kept_conflicts
