"""The referee's numpy quick look (``none_meet``) against pairs compared one by one, and
``check`` with it against the sweep alone, on random small captures, cyclic ones too."""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest

from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.model.placement import Placement
from tilefit.verdicts import check as check_module
from tilefit.verdicts.check import CheckResult, check
from tilefit.verdicts.disjoint import none_meet


def _steps(start: int, end: int, period: int, wraps: bool) -> list[tuple[int, int]]:
    return [(start, end)] if not wraps or start < end else [(0, end), (start, period)]


def _meet_by_pairs(capture: Capture, offsets: dict[str, int]) -> int:
    """Pairs sharing an address at a common step, compared one by one."""
    met = 0
    for a, b in combinations(capture.requests, 2):
        lo_a, lo_b = offsets[a.id], offsets[b.id]
        if not (lo_a < lo_b + b.size and lo_b < lo_a + a.size):
            continue
        runs_a = _steps(a.start, a.end, capture.horizon, capture.wraps)
        runs_b = _steps(b.start, b.end, capture.horizon, capture.wraps)
        met += any(max(x0, y0) < min(x1, y1) for x0, x1 in runs_a for y0, y1 in runs_b)
    return met


def _random(seed: int, cyclic: bool) -> tuple[Capture, dict[str, int]]:
    """A few requests, mostly stacked apart by a first fit over a few random orders, so
    that as many placements are valid as not."""
    rng = random.Random(seed)
    horizon = rng.randrange(2, 12)
    requests = []
    for k in range(rng.randrange(1, 14)):
        start = rng.randrange(horizon)
        if cyclic and rng.random() < 0.4:
            end = rng.randrange(0, start + 1)  # wraps past the last step (or the whole circle)
        else:
            end = rng.randrange(start + 1, horizon + 1)
        requests.append(Request(f"r{k}", rng.choice((1, 2, 4, 8)), start, end))
    capture = Capture(
        name="quick",
        horizon=horizon,
        memory=Memory(size=1 << 20, ranges=(Range(0, 1 << 20),)),
        requests=tuple(requests),
    )
    offsets = {r.id: rng.randrange(0, 24) for r in requests}
    return capture, offsets


def _by_sweep(
    capture: Capture, placement: Placement, monkeypatch: pytest.MonkeyPatch
) -> CheckResult:
    with monkeypatch.context() as patch:
        patch.setattr(check_module, "none_meet", lambda *arrays: False)
        return check(capture, placement)


@pytest.mark.parametrize("cyclic", [False, True])
def test_quick_look_agrees_with_pairs_one_by_one(cyclic: bool) -> None:
    cleared = refused = 0
    for seed in range(400):
        capture, offsets = _random(seed, cyclic)
        met = _meet_by_pairs(capture, offsets)
        runs = [
            (lo, hi, offsets[r.id], offsets[r.id] + r.size)
            for r in capture.requests
            for lo, hi in _steps(r.start, r.end, capture.horizon, capture.wraps)
        ]
        arrays = [np.array(column, dtype=np.int64) for column in zip(*runs, strict=True)]
        assert none_meet(*arrays) == (met == 0), (seed, capture.requests, offsets)
        cleared += met == 0
        refused += met > 0
    assert cleared > 50 and refused > 50  # both answers were asked for


@pytest.mark.parametrize("cyclic", [False, True])
def test_check_with_the_quick_look_equals_the_sweep_alone(
    cyclic: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    valid = 0
    for seed in range(300):
        capture, offsets = _random(seed, cyclic)
        placement = Placement(capture.name, offsets)
        quick = check(capture, placement)
        assert quick == _by_sweep(capture, placement, monkeypatch)
        assert quick.count("overlap") == _meet_by_pairs(capture, offsets)
        valid += quick.valid
    assert valid > 30


def _broken(seed: int, cyclic: bool) -> tuple[Capture, dict[str, int]] | None:
    """A valid random placement with one request moved onto another it shares a step with."""
    capture, offsets = _random(seed, cyclic)
    if not check(capture, Placement(capture.name, offsets)).valid:
        return None
    for a, b in combinations(capture.requests, 2):
        moved = {**offsets, b.id: offsets[a.id]}
        if _meet_by_pairs(capture, moved):
            return capture, moved
    return None


@pytest.mark.parametrize("cyclic", [False, True])
def test_a_broken_placement_changes_the_result(
    cyclic: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = [b for b in (_broken(seed, cyclic) for seed in range(300)) if b is not None]
    assert len(broken) > 20
    for capture, offsets in broken:
        result = check(capture, Placement(capture.name, offsets))
        assert not result.valid
        assert result.count("overlap") == _meet_by_pairs(capture, offsets) > 0
        assert result == _by_sweep(capture, Placement(capture.name, offsets), monkeypatch)
