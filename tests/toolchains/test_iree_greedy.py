"""IREE's static packer reimplemented (toolchains/iree/greedy.py) gives, on random packs,
every offset and the slab that IREE's own layout pass gives (run by iree-opt); the same
comparison tells a packer that takes the slices in another order apart."""

from __future__ import annotations

import random

import pytest
from iree_programs import iree_layout, needs_iree

from tilefit.toolchains.iree.greedy import align, pack_greedily
from tilefit.toolchains.iree.packs import Slice


def random_pack(rng: random.Random, count: int) -> list[Slice]:
    slices = []
    for i in range(count):
        first = rng.randrange(0, 12)
        last = first + rng.randrange(0, 6)
        size = rng.choice([rng.randrange(1, 5000), rng.randrange(1, 64) * 64, 16384])
        slices.append(Slice(i, first, last, size, f"%z{i}"))
    slices.sort(key=lambda s: s.first)  # IREE lists a pack's slices in lifetime order
    return [Slice(i, s.first, s.last, s.size, s.size_name) for i, s in enumerate(slices)]


def test_the_packer_gives_iree_s_offsets_on_random_packs() -> None:
    needs_iree()
    rng = random.Random(39)
    reordered_differs = 0
    for trial in range(12):
        alignment = (64, 16, 256)[trial % 3]
        pack = random_pack(rng, rng.randrange(1, 30))
        slab, offsets = iree_layout(pack, alignment)
        ours = pack_greedily(pack, alignment, alignment)
        assert (ours.slab, list(ours.offsets)) == (slab, offsets), trial
        # the comparison can fail: the same slices by size give other offsets (mostly)
        by_size = sorted(pack, key=lambda s: -(s.size or 0))
        other = pack_greedily(by_size, alignment, alignment)
        moved = dict(zip((s.index for s in by_size), other.offsets, strict=True))
        reordered_differs += [moved[s.index] for s in pack] != offsets
    assert reordered_differs >= 6


def test_the_smallest_gap_and_the_top() -> None:
    # a: [0, 1] 128 B at 0; b: [0, 3] 64 B on top at 128; c: [2, 3] 64 B fits in a's
    # place below b (a no longer lives), not on top.
    pack = [Slice(0, 0, 1, 128, "%a"), Slice(1, 0, 3, 64, "%b"), Slice(2, 2, 3, 64, "%c")]
    layout = pack_greedily(pack, 64, 64)
    assert layout.offsets == (0, 128, 0)
    assert layout.slab == 192
    assert align(65, 64) == 128 and align(64, 64) == 64 and align(0, 64) == 0


def test_dynamic_slices_are_not_packed_here() -> None:
    with pytest.raises(AssertionError):
        pack_greedily([Slice(0, 0, 1, None, "%d")], 64, 64)
