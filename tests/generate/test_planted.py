"""Planted hard tiles: valid by construction, at the density asked; infeasible cores really are.

The infeasible cores are confirmed by a tiny exhaustive search written here,
over every aligned base of every unit, sharing nothing with tilefit's search.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import replace

import pytest

from tilefit.bounds.deficit import bound
from tilefit.formats.load import capture_from_json
from tilefit.formats.save import capture_text, capture_to_json
from tilefit.generate.infeasible import CORES, core_of, infeasible_tiles
from tilefit.generate.planted import PlantedRecipe, contents, density, planted_tile
from tilefit.generate.scattered import ScatteredRecipe, scattered_tile
from tilefit.model.capture import Capture, Request
from tilefit.verdicts.check import check

DENSITIES = (1.0, 0.97, 0.95, 0.9, 0.85, 0.8)


@pytest.mark.parametrize(
    ("family", "target"),
    [*(("planted", d) for d in DENSITIES), *(("scattered", d) for d in DENSITIES[2:])],
)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_planted_placement_is_valid_at_the_density(family: str, target: float, seed: int) -> None:
    if family == "planted":
        capture, placement = planted_tile(PlantedRecipe(requests=500, density=target, seed=seed))
    else:  # a random drawing stops short of 100%
        capture, placement = scattered_tile(ScatteredRecipe(500, density=target, seed=seed))
    result = check(capture, placement)
    assert result.valid, result.violations[:3]
    assert target - PlantedRecipe().tolerance <= density(capture) <= target
    if family == "planted":  # the scattered counts: test_scattered.py
        assert 300 <= len(capture.requests) <= 1500
    # The loader enforces every rule of the format (aligned sequence bases, ids, edges).
    assert capture_from_json(capture_to_json(capture)) == capture


@pytest.mark.parametrize(("requests", "target"), [(350, 0.8), (350, 1.0), (1300, 0.8), (1300, 1.0)])
def test_request_counts_stay_in_range(requests: int, target: float) -> None:
    # About the number asked (thinning is random): recipes of 350-1300 stay within 300-1500.
    capture, placement = planted_tile(PlantedRecipe(requests=requests, density=target, seed=5))
    assert 300 <= len(capture.requests) <= 1500
    assert abs(len(capture.requests) - requests) <= 0.15 * requests
    assert check(capture, placement).valid


@pytest.mark.parametrize("family", ["planted", "scattered"])
def test_every_constraint_kind_is_present(family: str) -> None:
    if family == "planted":
        capture, placement = planted_tile(PlantedRecipe(requests=600, density=0.95, seed=4))
    else:
        capture, placement = scattered_tile(ScatteredRecipe(700, density=0.95, seed=2))
    counts = contents(capture)
    for kind in ("sequences", "conflicts", "interleaved", "aligned", "long-lived"):
        assert counts[kind] > 0, kind
    assert {q.cls for q in capture.requests} == {"resident", "output", "activation", "scratch"}
    assert any(q.alignment < 64 for q in capture.requests)
    # Only scratch sits in the scratch-only host aperture, and some does.
    aperture = next(r for r in capture.memory.ranges if r.classes is not None)
    inside = [
        q for q in capture.requests if aperture.start <= placement.offsets[q.id] < aperture.end
    ]
    assert inside and all(q.cls == "scratch" for q in inside)
    # Members keep lifetimes of their own (planted: all different, the hard case).
    by_id = capture.request_by_id
    lifetimes = [[(by_id[m].start, by_id[m].end) for m in s.members] for s in capture.sequences]
    assert all(2 <= len(members) <= 6 for members in lifetimes)
    assert any(len(set(members)) > 1 for members in lifetimes)
    if family == "planted":
        assert all(len(set(members)) == len(members) for members in lifetimes)
    assert any(
        c.a in capture.sequence_by_id or c.b in capture.sequence_by_id for c in capture.conflicts
    )
    # A few per cent of the requests have a conflict edge, most living together.
    assert 0.01 * len(capture.requests) <= len(capture.conflicts) <= 0.1 * len(capture.requests)


def test_same_seed_same_bytes_other_seed_other_capture() -> None:
    recipe = PlantedRecipe(requests=400, density=0.9, seed=11)
    first = capture_text(planted_tile(recipe)[0])
    assert capture_text(planted_tile(recipe)[0]) == first
    assert capture_text(planted_tile(replace(recipe, seed=12))[0]) != first


def test_the_checker_sees_a_broken_planted_placement() -> None:
    capture, placement = planted_tile(PlantedRecipe(requests=300, density=1.0, seed=0))
    moved = dict(placement.offsets)
    a, b = capture.requests[0].id, capture.requests[1].id
    moved[a], moved[b] = moved[b], moved[a]
    assert not check(capture, replace(placement, offsets=moved)).valid


# --------------------------------------------------------------------------- infeasible


@pytest.fixture(scope="module")
def infeasible() -> list[tuple[str, Capture]]:
    return infeasible_tiles(seed=0)


def test_one_capture_per_kind_and_the_bounds_see_no_deficit(
    infeasible: list[tuple[str, Capture]],
) -> None:
    assert [kind for kind, _ in infeasible] == list(CORES)
    for kind, capture in infeasible:
        report = bound(capture)
        assert report.lower_bound <= report.available, kind
        assert report.support.deficit == 0, kind
        assert len(capture.requests) >= 300, kind  # a realistic background around the core
        assert capture_from_json(capture_to_json(capture)) == capture


def test_cores_are_infeasible_by_exhaustive_search(infeasible: list[tuple[str, Capture]]) -> None:
    for kind, capture in infeasible:
        assert not _placeable(core_of(capture)), kind


def test_cores_less_one_request_are_placeable(infeasible: list[tuple[str, Capture]]) -> None:
    # Each core is tight: drop its last request and the exhaustive search places the rest.
    for kind, capture in infeasible:
        core = core_of(capture)
        last = core.requests[-1].id
        relaxed = replace(
            core,
            requests=core.requests[:-1],
            sequences=tuple(
                replace(s, members=tuple(m for m in s.members if m != last)) for s in core.sequences
            ),
            conflicts=tuple(c for c in core.conflicts if last not in (c.a, c.b)),
        )
        assert _placeable(relaxed), kind


# --------------------------------------------------------------------------- brute force

Placed = list[tuple[Request, int]]


def _placeable(capture: Capture) -> bool:
    """Try every aligned base of every unit (a plain request or a whole sequence)."""
    by_id = {r.id: r for r in capture.requests}
    units = [(s.id, [by_id[m] for m in s.members]) for s in capture.sequences]
    grouped = {m for s in capture.sequences for m in s.members}
    units += [(r.id, [r]) for r in capture.requests if r.id not in grouped]
    options = [_bases(capture, members) for _, members in units]
    assert all(len(o) <= 200 for o in options), "the brute force is meant for small cores"
    chosen: dict[str, Placed] = {}

    def extend(k: int) -> bool:
        if k == len(units):
            return True
        ident, _ = units[k]
        for placed in options[k]:
            if all(
                _compatible(capture, ident, placed, other, done) for other, done in chosen.items()
            ):
                chosen[ident] = placed
                if extend(k + 1):
                    return True
                del chosen[ident]
        return False

    return extend(0)


def _bases(capture: Capture, members: list[Request]) -> list[Placed]:
    """Every placement of the members back to back with each aligned and inside its allowed set."""
    out: list[Placed] = []
    size = capture.memory.size
    for base in range(0, size, members[0].alignment):
        offset, placed = base, []
        for m in members:
            if offset % m.alignment or not _allowed(capture, m, offset):
                break
            placed.append((m, offset))
            offset += m.size
        else:
            out.append(placed)
    return out


def _allowed(capture: Capture, r: Request, offset: int) -> bool:
    memory = capture.memory
    low = offset
    if r.interleaved and memory.interleaved_offset is not None and low < memory.interleaved_offset:
        return False
    spans = sorted(
        (g.start, g.end) for g in memory.ranges if g.classes is None or r.cls in g.classes
    )
    for start, end in spans:  # walk up through adjacent ranges until the request's end
        if start <= low < end:
            low = end
        if low >= offset + r.size:
            return True
    return False


def _compatible(capture: Capture, a: str, pa: Placed, b: str, pb: Placed) -> bool:
    for ra, oa in pa:
        for rb, ob in pb:
            if ra.start < rb.end and rb.start < ra.end and oa < ob + rb.size and ob < oa + ra.size:
                return False
    edges = {(c.a, c.b) for c in capture.conflicts}
    if (a, b) in edges or (b, a) in edges:
        return not (_touched(capture, pa) & _touched(capture, pb))
    return True


def _touched(capture: Capture, placed: Placed) -> set[int]:
    elements = capture.memory.elements
    out: set[int] = set()
    for r, offset in placed:
        first = bisect_right(elements, offset) - 1
        last = bisect_right(elements, offset + r.size - 1) - 1
        out.update(range(first, last + 1))
    return out
