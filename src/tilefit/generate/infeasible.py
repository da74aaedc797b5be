"""Infeasible hard tiles: no valid placement, although every byte bound says it fits.

Each capture embeds a small infeasible core (ids starting ``core-``) in a
realistic feasible background: a planted tile (``tilefit.generate.planted``) at about
70% density, thinned where the core lives until the live peak fits in the
available storage and the support-aware bound shows no deficit. Adding
requests never makes an infeasible core placeable (a valid placement of the
whole restricts to a valid placement of the core), so each capture is
infeasible exactly because its core is. The memory is ``planted.MEMORY``:
ranges ``low`` [12288, 94208), ``host-aperture`` [98304, 106496) (scratch
only), ``mid`` [110592, 196608) and ``high`` [200704, 258048); interleaved
from 131,072; elements of 16 KiB below it and 32 KiB from it. Every core
request lives at the middle step ``t*`` (lifetimes differ around it), but for
the ``stretches`` core, which lives at the steps either side of it.

Why each core has no valid placement:

``elements``
    Five interleaved requests (8 KiB), pairwise in conflict. Interleaved
    bytes lie at or above 131,072, where there are four memory elements.
    Each request touches at least one of them and conflicting requests touch
    disjoint sets of elements: five disjoint non-empty subsets of four
    elements do not exist.
``alignment``
    Six resident requests of 12 KiB aligned to 32 KiB. The multiples of
    32,768 where 12 KiB fits inside a range open to residents are 32768,
    65536, 131072, 163840 and 229376 (0 is reserved, 98304 is the
    scratch-only aperture, 196608 is in the reserved gap): five slots; two
    requests at one slot overlap, and all live at ``t*``.
``classes``
    Six activation requests of 8 KiB aligned to 32 KiB: the same five slots,
    since the sixth multiple of 32,768 that holds 8 KiB, 98304, is the host
    aperture, open to class ``scratch`` only (as scratch they would fit).
``sequences``
    Three sequences of four members (16+12+20+16 KiB = 64 KiB each). A 64 KiB
    block fits only in ``low`` (80 KiB) or ``mid`` (84 KiB); two blocks in one
    of them overlap, and all members live at ``t*``: three blocks, two places.
``sequence-too-long``
    One sequence of six 16 KiB members whose lifetimes follow one another
    (at most two live at once, 32 KiB), 96 KiB back to back: longer than
    every range, and the reserved gaps keep ranges from joining.
``interleaved``
    Three interleaved requests of 36 KiB. The interleaved region's available
    part is [131072, 196608) and [200704, 258048), split by a reserved gap,
    120 KiB in all; each part holds one 36 KiB request (two need 72 KiB),
    so the third has nowhere to go.
``stretches``
    Three interleaved weights of 1.5 KiB live through ``t*-1`` and ``t*+1``;
    interleaved bytes lie in ``mid`` above 131,072 or in ``high``. At ``t*-1``
    an 82 KiB activation that only ``mid`` holds leaves 2 KiB of it free; at
    ``t*+1`` interleaved activations of 60 KiB (only ``mid`` holds it) and
    54 KiB (then only ``high``) leave 2 KiB of ``high`` free. A weight keeps
    its stretch at both steps: one fits in ``mid``, one in ``high``, and the
    third nowhere. Each step alone has room for all three: only the choice of
    stretch, held from step to step, shows it (the ``choice`` proof).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

from tilefit.bounds.deficit import support_bound
from tilefit.generate.planted import PlantedRecipe, live_peak, planted_tile
from tilefit.model.capture import Capture, Conflict, Request, Sequence

CORE = "core-"
BACKGROUND_DENSITY = 0.7

Core = tuple[list[Request], list[Sequence], list[Conflict]]


def infeasible_tiles(seed: int = 0, background: int = 400) -> list[tuple[str, Capture]]:
    """``(kind, capture)`` for every kind of core, each in its own background tile."""
    out: list[tuple[str, Capture]] = []
    for k, (kind, build) in enumerate(CORES.items()):
        recipe = PlantedRecipe(
            requests=background, density=BACKGROUND_DENSITY, seed=seed * 1000 + k
        )
        tile, _ = planted_tile(recipe)
        core = build(tile.horizon // 2)
        out.append((kind, _embed(random.Random(seed * 1000 + k), tile, core, kind, seed)))
    return out


def core_of(capture: Capture) -> Capture:
    """The core alone: the requests, sequences and conflicts whose ids start with ``core-``."""
    return replace(
        capture,
        name=f"{capture.name} (core)",
        requests=tuple(r for r in capture.requests if r.id.startswith(CORE)),
        sequences=tuple(s for s in capture.sequences if s.id.startswith(CORE)),
        conflicts=tuple(
            c for c in capture.conflicts if c.a.startswith(CORE) and c.b.startswith(CORE)
        ),
    )


# --------------------------------------------------------------------------- cores


def _around(t: int, k: int) -> tuple[int, int]:
    """The k-th distinct lifetime containing step t."""
    return t - 1 - k % 3, t + 1 + k // 3


def _elements(t: int) -> Core:
    requests = [
        Request(f"core-el{k}", 8192, *_around(t, k), 8192, "activation", True) for k in range(5)
    ]
    conflicts = [Conflict(a.id, b.id) for i, a in enumerate(requests) for b in requests[i + 1 :]]
    return requests, [], conflicts


def _alignment(t: int) -> Core:
    return (
        [Request(f"core-al{k}", 12_288, *_around(t, k), 32_768, "resident") for k in range(6)],
        [],
        [],
    )


def _classes(t: int) -> Core:
    requests = [
        Request(f"core-cl{k}", 8192, *_around(t, k), 32_768, "activation") for k in range(6)
    ]
    return requests, [], []


def _sequences(t: int) -> Core:
    requests: list[Request] = []
    sequences: list[Sequence] = []
    for s in range(3):
        members = [
            Request(f"core-sq{s}m{j}", size, t - 1 - j, t + 1 + s, 4096, "activation")
            for j, size in enumerate((16_384, 12_288, 20_480, 16_384))
        ]
        requests += members
        sequences.append(Sequence(f"core-sq{s}", tuple(m.id for m in members), "repeat"))
    return requests, sequences, []


def _sequence_too_long(t: int) -> Core:
    members = [
        Request(f"core-ln{j}", 16_384, t - 3 + j, t - 1 + j, 4096, "activation") for j in range(6)
    ]
    return members, [Sequence("core-ln", tuple(m.id for m in members))], []


def _interleaved(t: int) -> Core:
    requests = [
        Request(f"core-il{k}", 36_864, *_around(t, k), 4096, "activation", True) for k in range(3)
    ]
    return requests, [], []


def _stretches(t: int) -> Core:
    weights = [Request(f"core-sw{k}", 1536, t - 1, t + 2, 2048, "resident", True) for k in range(3)]
    acts = [
        Request("core-sa", 83_968, t - 1, t, 4096, "activation"),
        Request("core-sb", 61_440, t + 1, t + 2, 4096, "activation", True),
        Request("core-sc", 55_296, t + 1, t + 2, 4096, "activation", True),
    ]
    return weights + acts, [], []


CORES: dict[str, Callable[[int], Core]] = {
    "elements": _elements,
    "alignment": _alignment,
    "classes": _classes,
    "sequences": _sequences,
    "sequence-too-long": _sequence_too_long,
    "interleaved": _interleaved,
    "stretches": _stretches,
}


# --------------------------------------------------------------------------- embedding


def _embed(rng: random.Random, tile: Capture, core: Core, kind: str, seed: int) -> Capture:
    """The background plus the core, background units removed where the bounds would object.

    Removal takes whole units (a plain request or a whole sequence, with the
    conflict edges naming them) live at the step that breaks a bound.
    """
    requests, sequences, conflicts = core
    capture = replace(
        tile,
        name=f"infeasible-{kind}-s{seed}",
        requests=(*tile.requests, *requests),
        sequences=(*tile.sequences, *sequences),
        conflicts=(*tile.conflicts, *conflicts),
    )
    while True:
        peak_step = _over_peak(capture)
        support = support_bound(capture)
        if peak_step is None and support.deficit == 0:
            return capture
        step = support.step if peak_step is None else peak_step
        live = [
            r.id for r in capture.requests if r.start <= step < r.end and not r.id.startswith(CORE)
        ]
        if not live:
            raise RuntimeError(f"core {kind} alone breaks a bound at step {step}")
        capture = _without(capture, capture.sequence_of.get(v := rng.choice(live), v))


def _over_peak(capture: Capture) -> int | None:
    """A step where more bytes live than the available storage, or None."""
    if live_peak(capture) <= capture.available:
        return None
    for t in sorted({r.start for r in capture.requests}):
        if sum(r.size for r in capture.requests if r.start <= t < r.end) > capture.available:
            return t
    return None


def _without(capture: Capture, unit: str) -> Capture:
    gone = set(capture.members(unit)) | {unit}
    return replace(
        capture,
        requests=tuple(r for r in capture.requests if r.id not in gone),
        sequences=tuple(s for s in capture.sequences if s.id not in gone),
        conflicts=tuple(c for c in capture.conflicts if c.a not in gone and c.b not in gone),
    )
