"""Synthetic tile captures of an IPU-like accelerator, reproducible from a seed.

A real model's captures cannot be shipped, so tests and benchmarks build
their own. Each tile looks like what a graph compiler asks of one tile:

* a 638,976-byte tile: 16 KiB memory elements below the interleaved offset,
  32 KiB elements above it (``ipu_memory``);
* what code, vertex state and exchange buffers leave is available, plus a
  host-exchange aperture open only to class ``scratch``;
* per layer: resident weights as one contiguous (Repeat) sequence, 8-byte
  aligned, live for the whole horizon; the layer's input activation, produced
  by the layer before it and sometimes kept for a residual connection, some of
  them interleaved; short-lived partial results; 32-byte aligned scratch
  living one step; now and then a final output that lives until model
  completion (``end == horizon``);
* bank-conflict edges between operands read together: a layer's weight
  sequence and its input activation, and a scratch buffer and a partial result.

Sizes are drawn, then scaled so that the live-storage lower bound is
``pressure`` times the available storage (exact up to alignment). Below
about 0.9 a tile usually fits as produced; near 1.0 the production order can
fail where a better one fits (fragmentation); above 1.0 no placement exists.

Everything is deterministic for a seed: draws come from ``random.Random``,
never the global generator.

>>> tile = make_tile(Recipe(pressure=0.95, seed=7))          # one Capture
>>> model = list(synth_model(tiles=16, seed=1))              # model-tile0000 ...
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from tilefit.bounds.live import live_peak, request_spans
from tilefit.model.capture import (
    DEFAULT_PRODUCTION,
    Capture,
    Conflict,
    Memory,
    Range,
    Request,
    Sequence,
)

TILE_BYTES = 638_976  # a Mk2 (GC200) tile: 624 KiB
TILES_PER_IPU = 1_472
ELEMENT_BYTES = 16_384  # non-interleaved memory elements
INTERLEAVED_ELEMENT_BYTES = 32_768
INTERLEAVED_OFFSET = TILE_BYTES - 6 * INTERLEAVED_ELEMENT_BYTES  # six 32 KiB elements on top
EXCHANGE_BYTES = 32_768  # exchange buffers, just below the interleaved offset
APERTURE_BYTES = 16_384
SCRATCH = "scratch"

WEIGHT_ALIGNMENT = 8  # paired 64-bit loads
SCRATCH_ALIGNMENT = 32


@dataclass(frozen=True, slots=True)
class Recipe:
    """The knobs of one synthetic tile."""

    pressure: float = 0.8  # target live-storage lower bound / available storage
    requests: int = 500  # about this many requests
    layers: int = 24
    steps_per_layer: int = 4
    available: int = 482_496  # bytes left for variables, aperture included
    aperture: int = APERTURE_BYTES  # of it, the scratch-only host aperture
    resident_share: float = 0.45  # of the lower bound held by resident weights
    weights_per_layer: tuple[int, int] = (2, 6)  # members of a weight sequence, inclusive
    interleaved_share: float = 0.2  # chance an activation must be interleaved
    residual_share: float = 0.25  # chance an activation lives on into the next layer
    output_share: float = 0.2  # chance a layer emits an output kept to model completion
    conflicts: bool = True
    production: tuple[str, ...] = DEFAULT_PRODUCTION
    seed: int = 0


@dataclass(frozen=True, slots=True)
class Mix:
    """How a synthetic model's tiles spread over pressure: most fit, some tight, a few over."""

    fits: tuple[float, float] = (0.55, 0.85)
    tight: tuple[float, float] = (0.91, 0.97)
    over: tuple[float, float] = (1.02, 1.12)
    tight_share: float = 0.15
    over_share: float = 0.08
    available: tuple[int, int] = (460_000, 500_000)  # code size differs from tile to tile


def ipu_memory(
    available: int,
    aperture: int = APERTURE_BYTES,
    *,
    exchange: int = EXCHANGE_BYTES,
    size: int = TILE_BYTES,
    interleaved_offset: int = INTERLEAVED_OFFSET,
    element: int = ELEMENT_BYTES,
    interleaved_element: int = INTERLEAVED_ELEMENT_BYTES,
) -> Memory:
    """An IPU-like tile with ``available`` bytes for variables, ``aperture`` of them scratch-only.

    Layout, low to high: code and vertex state, the host aperture, variables,
    exchange buffers ending at the interleaved offset, interleaved variables.
    """
    code = size - available - exchange
    if not 0 <= aperture <= available:
        raise ValueError(f"aperture {aperture} must lie within available {available}")
    if not 0 < interleaved_offset <= size or exchange < 0:
        raise ValueError("need 0 < interleaved_offset <= size and exchange >= 0")
    low_end = interleaved_offset - exchange
    if code < 0 or code + aperture > low_end:
        raise ValueError(
            f"available {available} + exchange {exchange} do not fit a {size}-byte tile "
            f"below which code must live"
        )
    elements = (
        *range(0, interleaved_offset, element),
        *range(interleaved_offset, size, interleaved_element),
    )
    ranges = [
        Range(code, code + aperture, "host aperture", (SCRATCH,)),
        Range(code + aperture, low_end, "variables"),
        Range(interleaved_offset, size, "interleaved variables"),
    ]
    return Memory(
        size=size,
        ranges=tuple(r for r in ranges if r.end > r.start),
        elements=elements,
        interleaved_offset=interleaved_offset,
    )


@dataclass(frozen=True, slots=True)
class _Kind:
    """A kind of request: its class, alignment and relative size range (log-uniform)."""

    cls: str
    alignment: int
    sizes: tuple[float, float]


# Scaling to the pressure fixes the bytes; these only set the proportions.
_WEIGHT = _Kind("resident", WEIGHT_ALIGNMENT, (2.0, 24.0))
_ACTIVATION = _Kind("activation", WEIGHT_ALIGNMENT, (4.0, 32.0))
_PARTIAL = _Kind("activation", WEIGHT_ALIGNMENT, (1.0, 12.0))
_SCRATCH = _Kind(SCRATCH, SCRATCH_ALIGNMENT, (0.25, 6.0))
_OUTPUT = _Kind("output", WEIGHT_ALIGNMENT, (4.0, 24.0))


@dataclass(frozen=True, slots=True)
class _Draft:
    """A request before scaling: its relative size and its place in the model."""

    id: str
    kind: _Kind
    weight: float
    start: int
    end: int
    label: str
    interleaved: bool = False

    def lives_with(self, other: _Draft) -> bool:
        return self.start < other.end and other.start < self.end


def _draft(
    rng: random.Random, kind: _Kind, ident: str, lifetime: tuple[int, int], label: str
) -> _Draft:
    lo, hi = kind.sizes
    weight = math.exp(rng.uniform(math.log(lo), math.log(hi)))
    return _Draft(ident, kind, weight, lifetime[0], lifetime[1], label)


@dataclass(slots=True)
class _Model:
    drafts: list[_Draft] = field(default_factory=list)
    sequences: list[Sequence] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)


def make_tile(
    recipe: Recipe,
    rng: random.Random | None = None,
    *,
    name: str = "synthetic",
    tile: int | None = None,
) -> Capture:
    """One synthetic tile capture; ``rng`` defaults to ``random.Random(recipe.seed)``."""
    if recipe.layers < 1 or recipe.steps_per_layer < 2:
        raise ValueError("need at least one layer and two steps per layer")
    if recipe.pressure <= 0:
        raise ValueError("pressure must be > 0")
    rng = rng if rng is not None else random.Random(recipe.seed)
    horizon = recipe.layers * recipe.steps_per_layer
    model = _Model()
    budget = _per_layer(recipe.requests, recipe.layers)
    for layer in range(recipe.layers):
        _add_layer(model, recipe, rng, layer, budget[layer], horizon)
    return Capture(
        name=name,
        horizon=horizon,
        memory=ipu_memory(recipe.available, recipe.aperture),
        requests=tuple(_scale(model.drafts, recipe, horizon)),
        sequences=tuple(model.sequences),
        conflicts=tuple(model.conflicts),
        production=recipe.production,
        tile=tile,
    )


def _per_layer(total: int, layers: int) -> list[int]:
    base, extra = divmod(max(total, layers * 4), layers)
    return [base + (1 if k < extra else 0) for k in range(layers)]


def _add_layer(
    model: _Model, recipe: Recipe, rng: random.Random, layer: int, budget: int, horizon: int
) -> None:
    steps = recipe.steps_per_layer
    t0 = layer * steps
    t1 = t0 + steps
    tag = f"l{layer:03d}"
    name = f"layer{layer}"
    add = model.drafts.append

    lo, hi = recipe.weights_per_layer
    members = max(1, min(rng.randint(lo, hi), budget - 2))
    weights = [
        _draft(rng, _WEIGHT, f"{tag}.w{k}", (0, horizon), f"{name}/weight{k}")
        for k in range(members)
    ]
    model.drafts.extend(weights)
    model.sequences.append(Sequence(f"{tag}.weights", tuple(w.id for w in weights), name))

    # The input activation: produced in the last step of the layer before, kept
    # one layer longer when a residual connection reads it again.
    end = t1 + steps if rng.random() < recipe.residual_share else t1
    act = _draft(
        rng, _ACTIVATION, f"{tag}.act", (max(0, t0 - 1), min(end, horizon)), f"{name}/input"
    )
    add(replace(act, interleaved=rng.random() < recipe.interleaved_share))
    used = members + 1
    if recipe.conflicts:
        model.conflicts.append(Conflict(f"{tag}.weights", act.id))

    if used < budget and rng.random() < recipe.output_share:
        add(_draft(rng, _OUTPUT, f"{tag}.out", (t1 - 1, horizon), f"{name}/output"))
        used += 1

    rest = budget - used
    partials = []
    for k in range(rest * 2 // 5):
        start = t0 + rng.randrange(steps - 1)
        lifetime = (start, min(t1, start + rng.randint(1, 2)))
        partials.append(_draft(rng, _PARTIAL, f"{tag}.p{k}", lifetime, f"{name}/partial{k}"))
    scratch = []
    for k in range(rest - len(partials)):
        start = t0 + rng.randrange(steps)
        lifetime = (start, start + 1)
        scratch.append(_draft(rng, _SCRATCH, f"{tag}.s{k}", lifetime, f"{name}/scratch{k}"))
    model.drafts.extend(partials)
    model.drafts.extend(scratch)
    # A scratch buffer read together with a partial result: they are live together.
    together = [(s, p) for p in partials for s in scratch if s.lives_with(p)]
    if recipe.conflicts and together:
        model.conflicts.append(Conflict(together[0][0].id, together[0][1].id))


def _scale(drafts: list[_Draft], recipe: Recipe, horizon: int) -> list[Request]:
    """Bytes for every draft, so that the live-storage lower bound hits the target."""
    target = round(recipe.pressure * recipe.available)
    resident = [d for d in drafts if d.kind is _WEIGHT]
    transient = [d for d in drafts if d.kind is not _WEIGHT]
    resident_total = sum(d.weight for d in resident)
    resident_factor = recipe.resident_share * target / resident_total if resident else 0.0
    out = {d.id: _request(d, d.weight * resident_factor) for d in resident}
    resident_bytes = sum(r.size for r in out.values())
    room = max(0, target - resident_bytes)
    peak = _lower_bound([_request(d, d.weight) for d in transient])
    factor = room / peak if peak else 0.0
    # Small requests are rounded up to their alignment: shrink until the bound
    # is at most the target, then top up one request live at the peak.
    scaled: dict[str, Request] = {}
    for _ in range(8):
        scaled = {d.id: _request(d, d.weight * factor) for d in transient}
        if _lower_bound(list(scaled.values())) <= room:
            break
        factor *= 0.995
    out.update(scaled)
    requests = [out[d.id] for d in drafts]
    return _top_up(requests, target, horizon)


def _request(d: _Draft, size: float) -> Request:
    align = d.kind.alignment
    aligned = max(align, int(size) // align * align)
    return Request(d.id, aligned, d.start, d.end, align, d.kind.cls, d.interleaved, d.label)


def _top_up(requests: list[Request], target: int, horizon: int) -> list[Request]:
    """Grow the largest transient request live at the peak step by what the bound lacks.

    Every other step where it is live stays at or below the grown peak, so the
    bound rises by exactly the bytes added.
    """
    bound, step = _peak(requests)
    lack = target - bound
    live = [
        (r.size, -k, k)
        for k, r in enumerate(requests)
        if r.start <= step < r.end and not (r.start == 0 and r.end == horizon)
    ]
    if lack <= 0 or not live:
        return requests
    _, _, k = max(live)
    chosen = requests[k]
    grown = lack // chosen.alignment * chosen.alignment
    out = list(requests)
    out[k] = replace(chosen, size=chosen.size + grown)
    return out


def _lower_bound(requests: list[Request]) -> int:
    return _peak(requests)[0]


def _peak(requests: list[Request]) -> tuple[int, int]:
    """The live-storage lower bound and its first step (every draft ends by the horizon)."""
    return live_peak(request_spans(requests))


def model_recipe(tile: int, seed: int, mix: Mix = Mix(), base: Recipe = Recipe()) -> Recipe:
    """The recipe of one tile of a synthetic model: its pressure band drawn from ``mix``."""
    rng = random.Random(f"tilefit-synth/{seed}/{tile}")
    roll = rng.random()
    if roll < mix.over_share:
        band = mix.over
    elif roll < mix.over_share + mix.tight_share:
        band = mix.tight
    else:
        band = mix.fits
    lo, hi = mix.available
    available = rng.randint(lo // 8, hi // 8) * 8
    return replace(
        base,
        pressure=round(rng.uniform(*band), 4),
        available=available,
        seed=rng.getrandbits(63),
    )


def synth_model(
    tiles: int = TILES_PER_IPU,
    seed: int = 0,
    *,
    mix: Mix = Mix(),
    base: Recipe = Recipe(),
    prefix: str = "model",
) -> Iterator[Capture]:
    """The tiles of one synthetic model, named ``{prefix}-tileNNNN``.

    Tile k depends only on ``seed`` and k, so any slice of a model can be
    rebuilt on its own.
    """
    width = max(4, len(str(tiles - 1)))
    for k in range(tiles):
        recipe = model_recipe(k, seed, mix, base)
        yield make_tile(recipe, name=f"{prefix}-tile{k:0{width}d}", tile=k)
