"""The canonical search's problem as flat arrays: the free blocks, with pinned ones fixed.

Pinned blocks (see ``tilefit.search.blocks``) stand at given bases here. For a
free block they only remove bases: those where it would overlap a pinned piece
that lives with it, or touch an element that a pinned conflict partner
touches. What is left for each section (for section inference) is the union
of the addresses its free blocks may use, less the pinned pieces living there.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tilefit.model.intervals import merge
from tilefit.search.blocks import Bases, Block, SearchModel, Side, subtract_all
from tilefit.search.kernel.layout import Partners, Regions, Rows, Tables, ValidBases
from tilefit.search.kernel.sections import Sections, sweep
from tilefit.search.params import DEFAULT, Prunings

Array = NDArray[np.int64]


@dataclass(frozen=True)
class Obstacle:
    """A pinned piece at its address: bytes [lo, hi) during steps [start, end)."""

    lo: int
    hi: int
    start: int
    end: int


@dataclass
class FreeProblem:
    """Kernel inputs for the free blocks ``blocks`` (model indices), in that order."""

    blocks: tuple[int, ...]
    tables: Tables
    cuts: Array
    nsec: int
    n_edges: int
    max_cut_points: int
    trail_size: int  # the trail a run starts with at least: one search step's entries
    infeasible: bool  # some free block has no valid base at all

    def totals(self) -> Array:
        """Per section: the bytes of the free blocks alive in it."""
        tables = self.tables
        total = np.zeros(max(self.nsec, 1), dtype=np.int64)
        for i in range(len(self.blocks)):
            total[tables.s0[i] : tables.s1[i]] += tables.size[i]
        return total


Partner = tuple[int, int, int, int]
"""A conflict partner of a free block: its index, this side's size, its side's size, the edge."""


def free_problem(
    model: SearchModel,
    free: Sequence[int],
    pinned_at: Mapping[int, int],
    prunings: Prunings = DEFAULT.prunings,
    members_most: int = DEFAULT.exact.members_most,
) -> FreeProblem:
    """The kernel's inputs for the blocks numbered in ``free``, those in ``pinned_at``
    standing at their bases, with the kernel's prunings switched as ``prunings`` says;
    ``TooLarge`` when its sections would hold more than ``members_most`` members.

    Each switch is a table, not a branch in the kernel's hot loops: without
    ``twin`` no block has a twin; without ``decomposition`` every section boundary
    counts one crossing that never leaves, so none frees; ``dominance`` is one flag
    the frames read; ``stretch`` fills the stretch bound's tables
    (``tilefit.search.kernel.place.stretches_fit``) in sections whose region has more
    than one stretch. ``benchmarks/prune.py`` measures what the stretch bound saves,
    ``benchmarks/routes.py`` what each pruning earns in the portfolio."""
    blocks = [model.blocks[k] for k in free]
    index = {k: i for i, k in enumerate(free)}
    sections = sweep([(b.start, b.end) for b in blocks], members_most)
    nsec = sections.count
    obstacles = [
        Obstacle(base + p.offset, base + p.offset + p.size, p.start, p.end)
        for k, base in sorted(pinned_at.items())
        for p in model.blocks[k].pieces
    ]
    partners, edge_spans, forbid = _conflicts(model, index, sections.spans, pinned_at)
    rows = np.array([(ob.lo, ob.hi, ob.start, ob.end) for ob in obstacles], dtype=np.int64)
    rows = rows.reshape(-1, 4)
    bases = [_free_bases(block, rows, forbid[i]) for i, block in enumerate(blocks)]
    regions = _regions(blocks, sections, obstacles)
    tables = Tables(
        size=_ints([b.size for b in blocks]),
        s0=_ints([s[0] for s in sections.spans]),
        s1=_ints([s[1] for s in sections.spans]),
        width=_ints([b.end - b.start for b in blocks]),
        bases=_valid_bases(blocks, bases),
        members=sections.members,
        starts=_starts([s[0] for s in sections.spans], nsec),
        partners=_partners(partners),
        edge_lo=_ints([s[0] for s in edge_spans]),
        edge_hi=_ints([s[1] for s in edge_spans]),
        elem=_ints(list(model.elements)),
        regions=_region_table(regions),
        twin=_ints(
            _twins(blocks, sections.spans, bases, partners) if prunings.twin else [-1] * len(blocks)
        ),
        dominance=_ints([int(prunings.dominance)]),
        **_stretch_tables(blocks, sections.members, regions, prunings.stretch),
    )
    return FreeProblem(
        blocks=tuple(free),
        tables=tables,
        cuts=_cuts(sections.spans, edge_spans, nsec, prunings.decomposition),
        nsec=nsec,
        n_edges=len(edge_spans),
        max_cut_points=3 * (nsec + 2),  # cut points, then the parts between them
        trail_size=_step_entries(tables, nsec, len(blocks)) + 16,
        infeasible=any(not bs for bs in bases),
    )


def _valid_bases(blocks: Sequence[Block], bases: Sequence[Bases]) -> ValidBases:
    return ValidBases(
        res=_ints([b.residue for b in blocks]),
        mod=_ints([b.modulus for b in blocks]),
        ptr=_pointers(bases),
        lo=_ints([lo for bs in bases for lo, _ in bs]),
        hi=_ints([hi for bs in bases for _, hi in bs]),
    )


def _region_table(regions: Sequence[Sequence[tuple[int, int]]]) -> Regions:
    return Regions(
        ptr=_pointers(regions),
        lo=_ints([lo for rs in regions for lo, _ in rs]),
        hi=_ints([hi for rs in regions for _, hi in rs]),
        suf=_ints([n for rs in regions for n in _suffix(rs)]),
    )


def _partners(partners: Sequence[Sequence[Partner]]) -> Partners:
    return Partners(
        ptr=_pointers(partners),
        idx=_ints([p[0] for ps in partners for p in ps]),
        mine=_ints([p[1] for ps in partners for p in ps]),
        theirs=_ints([p[2] for ps in partners for p in ps]),
        edge=_ints([p[3] for ps in partners for p in ps]),
    )


def _cuts(
    spans: Sequence[tuple[int, int]],
    edge_spans: Sequence[tuple[int, int]],
    nsec: int,
    decomposition: bool,
) -> Array:
    """Per section boundary, the free blocks and conflict edges crossing it; without
    ``decomposition`` one crossing more on every inner boundary, which never leaves."""
    cuts = np.zeros(nsec + 1, dtype=np.int64)
    for first, last in spans:
        cuts[first + 1 : last] += 1
    for lo, hi in edge_spans:
        cuts[lo + 1 : hi] += 1
    if not decomposition:
        cuts[1:nsec] += 1
    return cuts


def _conflicts(
    model: SearchModel,
    index: Mapping[int, int],
    spans: Sequence[tuple[int, int]],
    pinned_at: Mapping[int, int],
) -> tuple[list[list[Partner]], list[tuple[int, int]], list[list[tuple[int, int]]]]:
    """Conflict edges: between free blocks they bind during the search (per free block
    its partners, per edge its section span); with a pinned block they only remove
    bases (per free block, the closed base intervals forbidden)."""
    partners: list[list[Partner]] = [[] for _ in index]
    edge_spans: list[tuple[int, int]] = []
    forbid: list[list[tuple[int, int]]] = [[] for _ in index]
    for edge in model.edges:
        a, b = edge.a, edge.b
        if a.block in index and b.block in index:
            # Both sides start at their block's base (else the block is pinned).
            ia, ib = index[a.block], index[b.block]
            e = len(edge_spans)
            edge_spans.append((min(spans[ia][0], spans[ib][0]), max(spans[ia][1], spans[ib][1])))
            partners[ia].append((ib, a.size, b.size, e))
            partners[ib].append((ia, b.size, a.size, e))
            continue
        for mine, other in ((a, b), (b, a)):
            if mine.block in index and other.block in pinned_at:
                forbid[index[mine.block]].append(_forbidden(mine, other, pinned_at, model))
    return partners, edge_spans, forbid


def _free_bases(block: Block, obstacles: Array, forbid: Sequence[tuple[int, int]]) -> Bases:
    """A free block's valid bases less those overlapping a pinned piece living with it or
    touching an element of a pinned partner; ``obstacles`` holds the pinned pieces' rows
    (lo, hi, start, end), as arrays: every free block asks which of them live beside it."""
    if not len(obstacles) and not forbid:  # nothing pinned: the common case, kept cheap
        return block.bases
    lo, hi, start, end = obstacles.T
    beside = (start < block.end) & (block.start < end)
    cuts = zip((lo[beside] - block.size + 1).tolist(), (hi[beside] - 1).tolist(), strict=True)
    return subtract_all(block.bases, itertools.chain(cuts, forbid))


def _step_entries(tables: Tables, nsec: int, count: int) -> int:
    """The trail entries one step of the search pushes at most: one placement's (its
    floors, the lows it raises, the edges it ends, the floors those lows lift) and the
    ranks of one part split off. The trail grows on demand, so only this much room is
    kept free; the path's total is not bounded here."""
    first, last = tables.s0, tables.s1
    degree = np.diff(tables.partners.ptr)
    near = np.zeros(count, dtype=np.int64)
    if count:
        alive = np.diff(tables.members.ptr)[first] - 1
        near = alive + tables.starts.ptr[last] - tables.starts.ptr[np.minimum(first + 1, last)]
    return int(np.max(last - first + near + 2 * degree, initial=0)) + nsec + count


def _twins(
    blocks: Sequence[Block],
    spans: Sequence[tuple[int, int]],
    bases: Sequence[Bases],
    partners: Sequence[Sequence[Partner]],
) -> list[int]:
    """Per free block, its twin of next lower index, or -1.

    Two free blocks are twins when exchanging them maps every placement to a
    placement: the same size, lifetime (sections), residue, modulus and valid
    bases, and the same conflict partners with the same side spans (so no
    edge between the two). Blocks of one problem are rigid with their sides at
    the base, so these are all the kernel knows of a block. Twins have equal
    ordering keys, so the lower index is the lower rank, in every part.

    The kernel chooses a block only once its twin of lower rank is placed
    (``tilefit.search.kernel.branch`` says why that loses no placement).
    """
    prev: dict[tuple[object, ...], int] = {}
    out: list[int] = []
    for i, block in enumerate(blocks):
        sides = tuple(sorted((w, mine, theirs) for w, mine, theirs, _ in partners[i]))
        key = (block.size, spans[i], block.residue, block.modulus, bases[i], sides)
        out.append(prev.get(key, -1))
        prev[key] = i
    return out


def _pointers(rows: Sequence[Sequence[object]]) -> Array:
    """Row starts of a compressed table (and its length at the end)."""
    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(r) for r in rows])
    return ptr


def _stretch_tables(
    blocks: Sequence[Block],
    members: Rows,
    regions: Sequence[Sequence[tuple[int, int]]],
    on: bool,
) -> dict[str, Any]:
    """The tables of the stretch bound (see ``Tables``): empty where it is checked in no
    section, so that the kernel skips it at once and no search pays for it when it is off."""
    stretch = [int(on and len(rs) > 1) for rs in regions]
    if not any(stretch):
        return {"stretch": _ints([]), "longest": _ints([]), "bysize": _rows([]), "waste": _ints([])}
    ptr = members.ptr.tolist()
    idx = members.idx.tolist()
    members_of = [idx[ptr[s] : ptr[s + 1]] for s in range(len(ptr) - 1)]
    return {
        "stretch": _ints(stretch),
        "longest": _ints(_longest(regions)),
        "bysize": _rows(
            [sorted(alive, key=lambda i: (-blocks[i].size, i)) for alive in members_of]
        ),
        "waste": _ints(
            [
                sum(hi - lo for lo, hi in rs if hi - lo < max(blocks[i].size for i in alive))
                if alive
                else 0
                for rs, alive in zip(regions, members_of, strict=True)
            ]
        ),
    }


def _ints(values: Sequence[int]) -> Array:
    return np.asarray(values, dtype=np.int64).reshape(-1)


def _rows(rows: Sequence[Sequence[int]]) -> Rows:
    return Rows(_pointers(rows), _ints([x for r in rows for x in r]))


def _starts(first: Sequence[int], nsec: int) -> Rows:
    """Per section, the blocks whose first section it is, ascending."""
    s0 = _ints(first)
    ptr = np.zeros(nsec + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(np.bincount(s0, minlength=nsec))
    return Rows(ptr, np.argsort(s0, kind="stable").astype(np.int64))


def _forbidden(
    mine: Side, other: Side, pinned_at: Mapping[int, int], model: SearchModel
) -> tuple[int, int]:
    """Bases of ``mine``'s block at which its side touches an element of pinned ``other``."""
    first, last = model.side_elements(other, pinned_at[other.block])
    elem = model.elements
    return elem[first] - mine.offset - mine.size + 1, elem[last + 1] - 1 - mine.offset


def _regions(
    blocks: Sequence[Block],
    sections: Sections,
    obstacles: Sequence[Obstacle],
) -> list[list[tuple[int, int]]]:
    """Per section: the addresses its free blocks may use, less pinned pieces living there.
    Blocks of one reach (most blocks share a few) are counted once per section, by numpy:
    sections hold tens of millions of entries on a real program."""
    reaches = [tuple((lo, hi + b.size) for lo, hi in b.bases) for b in blocks]
    kinds = sorted(set(reaches))  # a kind's number orders it as its reach sorts
    number = {r: k for k, r in enumerate(kinds)}
    kind = np.fromiter((number[r] for r in reaches), np.int64, len(reaches))
    nsec, width = sections.count, max(len(kinds), 1)
    if not obstacles and len(kinds) < 63:  # each section's kinds as one bit mask
        spans = np.asarray(sections.spans, dtype=np.int64).reshape(-1, 2)
        masks = np.zeros(nsec, dtype=np.int64)
        for k in range(len(kinds)):  # the sections where some block of kind k is alive
            change = np.zeros(nsec + 1, dtype=np.int64)
            np.add.at(change, spans[kind == k, 0], 1)
            np.add.at(change, spans[kind == k, 1], -1)
            masks |= (np.cumsum(change)[:nsec] > 0).astype(np.int64) << k
        distinct, which = np.unique(masks, return_inverse=True)
        unions = [
            _union([r for k, r in enumerate(kinds) if mask >> k & 1], ())
            for mask in distinct.tolist()
        ]
        return [unions[i] for i in which.tolist()]
    members, points = sections.members, sections.points
    entry_section = np.repeat(np.arange(nsec, dtype=np.int64), np.diff(members.ptr))
    present = np.unique(entry_section * width + kind[members.idx])  # (section, kind) pairs
    bounds = np.searchsorted(present // width, np.arange(nsec + 1)).tolist()
    kind_of = (present % width).tolist()
    out: list[list[tuple[int, int]]] = []
    cache: dict[tuple[Any, ...], list[tuple[int, int]]] = {}
    for s in range(nsec):
        t0, t1 = points[s], points[s + 1]
        keys = tuple(kinds[k] for k in kind_of[bounds[s] : bounds[s + 1]])
        blocked = tuple((ob.lo, ob.hi) for ob in obstacles if ob.start < t1 and t0 < ob.end)
        key = (keys, blocked)
        if key not in cache:
            cache[key] = _union(keys, blocked)
        out.append(cache[key])
    return out


def _union(
    reaches: Sequence[tuple[tuple[int, int], ...]], blocked: Sequence[tuple[int, int]]
) -> list[tuple[int, int]]:
    """The addresses that blocks of these reaches may use, less the blocked intervals."""
    starts, ends = merge(sorted(iv for r in reaches for iv in r))
    union = list(zip(starts, ends, strict=True))
    for lo, hi in blocked:
        union = _cut(union, lo, hi)
    return union


def _cut(intervals: list[tuple[int, int]], lo: int, hi: int) -> list[tuple[int, int]]:
    """Half-open intervals without [lo, hi)."""
    out: list[tuple[int, int]] = []
    for a, b in intervals:
        if b <= lo or a >= hi:
            out.append((a, b))
            continue
        if a < lo:
            out.append((a, lo))
        if b > hi:
            out.append((hi, b))
    return out


def _longest(regions: Sequence[Sequence[tuple[int, int]]]) -> list[int]:
    """Per section, the indices (into the flat region arrays) of its intervals, longest
    first. The intervals are its stretches: no two touch (``_regions`` merges touching
    reaches and cuts pinned pieces out), so a free block lies inside one of them."""
    out: list[int] = []
    at = 0
    for rs in regions:
        assert all(rs[k - 1][1] < rs[k][0] for k in range(1, len(rs))), "touching intervals"
        out.extend(at + k for k in sorted(range(len(rs)), key=lambda k: (rs[k][0] - rs[k][1], k)))
        at += len(rs)
    return out


def _suffix(intervals: Sequence[tuple[int, int]]) -> list[int]:
    """For each interval, the bytes in it and every later one."""
    out = [0] * len(intervals)
    acc = 0
    for k in range(len(intervals) - 1, -1, -1):
        acc += intervals[k][1] - intervals[k][0]
        out[k] = acc
    return out
