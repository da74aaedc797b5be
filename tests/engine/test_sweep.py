"""The sweep (``tilefit.engine.sweep_loop``) places as first-fit and best-fit do in any
order whose starts ascend: the same offsets and the same failure as the compiled loop that
gathers every live neighbour (``place_span``) and as the one-by-one engine."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_uniform import plain_captures

from tilefit.engine.attempt import Prepared, run_strategy
from tilefit.engine.uniform import CUT, UniformArrays, _place, _sweep, lowest_offsets
from tilefit.model.capture import Capture, Memory, Range, Request


def _start_order(uniform: UniformArrays, seed: int) -> np.ndarray:
    """Capture indices by start, ties in a shuffled order."""
    rng = np.random.default_rng(seed)
    ties = rng.permutation(len(uniform.starts))
    return np.lexsort((ties, uniform.starts)).astype(np.int64)


def _most_holes(uniform: UniformArrays, order: np.ndarray, offsets: np.ndarray) -> int:
    """The most free intervals of the allowed interval at any request's start, with the
    requests before it in ``order`` placed at ``offsets`` (one more: the sweep inserts
    before it takes)."""
    most = 1
    for position, i in enumerate(order.tolist()):
        now = uniform.starts[i]
        before = order[:position]
        alive = before[(uniform.ends[before] > now) & (offsets[before] >= 0)]
        lows, highs = offsets[alive], (offsets + uniform.sizes)[alive]
        blocks = sorted(zip(lows.tolist(), highs.tolist(), strict=True))
        holes, x = 0, uniform.low
        for low, high in blocks:
            holes += low > x
            x = max(x, high)
        holes += uniform.high > x
        most = max(most, holes + 1)
    return most


@settings(max_examples=200, deadline=None)
@given(plain_captures(reach=40), st.integers(0, 2**16), st.sampled_from([2, 4, 128]), st.booleans())
def test_the_sweep_places_as_the_gathering_loop(
    capture: Capture, seed: int, width: int, best: bool
) -> None:
    uniform = UniformArrays.of(capture, 3)
    assert uniform is not None
    order = _start_order(uniform, seed)
    gathered = _place(uniform, order, best, None)
    # Narrow chunks split often; just enough of them are repacked often.
    half = max(1, width // 2)
    rows = -(-_most_holes(uniform, order, gathered[0]) // half) + 1
    for chunks in (None, rows):
        swept = _sweep(uniform, order, best, None, width=width, rows=chunks)
        assert swept[1] == gathered[1]
        assert swept[0].tolist() == gathered[0].tolist()


def _sparse_chunks(pairs: int = 12, tops: int = 40) -> Capture:
    """Holes of 3 and 1 bytes in turn, the 3-byte ones then filled (each chunk left with
    one hole), then holes opened above them all in one chunk: it splits until no chunk
    is spare, and the chunks are repacked."""
    requests = []
    for i in range(pairs):
        requests += [
            Request(f"L{i}", 1, 0, 100),
            Request(f"A{i}", 3, 0, 1),
            Request(f"M{i}", 1, 0, 100),
            Request(f"B{i}", 1, 0, 1),
        ]
    requests += [Request(f"F{i}", 3, 2, 100) for i in range(pairs)]
    requests += [Request(f"T{i}", 10, 3, 4 if i % 2 == 0 else 100) for i in range(tops)]
    requests.append(Request("last", 1, 5, 6))  # its start gives the tops' holes back
    return Capture("sparse", 100, Memory(1 << 12, (Range(0, 1 << 12),)), tuple(requests))


@pytest.mark.parametrize("width", [4, 6])
@pytest.mark.parametrize("best", [False, True])
def test_chunks_run_out_are_repacked_and_place_alike(width: int, best: bool) -> None:
    uniform = UniformArrays.of(_sparse_chunks(), 3)
    assert uniform is not None
    order = np.arange(len(uniform.starts), dtype=np.int64)  # starts ascend
    gathered = _place(uniform, order, best, None)
    rows = -(-_most_holes(uniform, order, gathered[0]) // (width // 2)) + 1
    repacks: list[int] = []
    offsets, failed = _sweep(uniform, order, best, None, width=width, rows=rows, repacks=repacks)
    assert repacks[0] >= 1
    assert failed == gathered[1] == -1
    assert offsets.tolist() == gathered[0].tolist()


@pytest.mark.parametrize("fit", ["first-fit", "best-fit"])
def test_lifetime_fits_take_the_sweep_and_place_as_one_by_one(
    monkeypatch: pytest.MonkeyPatch, fit: str
) -> None:
    # Nested lifetimes and alignment gaps: holes open, merge and split all along.
    rng = np.random.default_rng(7)
    requests = []
    for k in range(600):
        start = int(rng.integers(0, 300))
        requests.append(
            Request(
                f"r{k}",
                int(rng.integers(1, 64)),
                start,
                start + int(rng.integers(1, 40)),
                alignment=int(rng.choice([1, 4, 16])),
            )
        )
    capture = Capture("nested", 340, Memory(1 << 20, (Range(0, 1 << 20),)), tuple(requests))
    swept: list[int] = []
    real = _sweep

    def counted(*args: object, **kwargs: object) -> tuple[np.ndarray, int]:
        swept.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("tilefit.engine.uniform._sweep", counted)
    prepared = Prepared.of(capture, uniform_from=0)
    attempt = run_strategy(prepared, f"lifetime/{fit}")
    assert swept == [1]
    assert attempt.fits
    assert attempt == run_strategy(replace(prepared, uniform=None), f"lifetime/{fit}")
    # The size order does not ascend by start: the gathering loop places it.
    run_strategy(prepared, f"size/{fit}")
    assert swept == [1]


def test_a_broken_sweep_is_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    # The comparison above would see a sweep that placed one request a byte higher.
    capture = Capture(
        "two",
        4,
        Memory(64, (Range(0, 64),)),
        (Request("a", 8, 0, 2), Request("b", 8, 1, 3), Request("c", 8, 2, 4)),
    )
    prepared = Prepared.of(capture, uniform_from=0)
    real = _sweep

    def shifted(*args: object, **kwargs: object) -> tuple[np.ndarray, int]:
        offsets, failed = real(*args, **kwargs)  # type: ignore[arg-type]
        offsets[2] += 1
        return offsets, failed

    monkeypatch.setattr("tilefit.engine.uniform._sweep", shifted)
    one = run_strategy(replace(prepared, uniform=None), "lifetime/first-fit")
    assert run_strategy(prepared, "lifetime/first-fit") != one


def test_the_sweep_fails_where_no_hole_holds_the_request_and_is_cut_by_stop() -> None:
    capture = Capture(
        "full",
        3,
        Memory(16, (Range(0, 16),)),
        (Request("a", 8, 0, 3), Request("b", 4, 1, 3), Request("c", 8, 2, 3)),
    )
    uniform = UniformArrays.of(capture, 1)
    assert uniform is not None
    order = np.arange(3, dtype=np.int64)
    offsets, failed = lowest_offsets(uniform, order)
    assert (offsets.tolist(), failed) == ([0, 8, -1], 2)
    assert lowest_offsets(uniform, order, stop=lambda: True)[1] == CUT
