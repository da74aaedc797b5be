"""Synthetic IPU-like tiles: valid captures, the seed's kinds of requests, exact pressure."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from itertools import islice
from pathlib import Path

import pytest

from tilefit.batch.bundle import bundle_line
from tilefit.bounds.deficit import bound
from tilefit.cli import main
from tilefit.engine.attempt import Prepared, run_strategy
from tilefit.engine.strategy import STRATEGIES
from tilefit.formats.load import capture_from_json, read_capture
from tilefit.formats.save import capture_to_json
from tilefit.generate.synth import (
    INTERLEAVED_OFFSET,
    TILE_BYTES,
    Mix,
    Recipe,
    ipu_memory,
    make_tile,
    model_recipe,
    synth_model,
)
from tilefit.model.capture import Capture


def test_same_seed_same_tile_other_seed_other_tile() -> None:
    recipe = Recipe(pressure=0.9, seed=11)
    first, again = make_tile(recipe), make_tile(recipe)
    assert first == again
    assert bundle_line(first) == bundle_line(again)
    assert make_tile(replace(recipe, seed=12)) != first
    assert make_tile(recipe, random.Random(11)) == first


def test_global_random_is_left_alone() -> None:
    random.seed(5)
    state = random.getstate()
    make_tile(Recipe(seed=1))
    list(synth_model(tiles=3, seed=2))
    assert random.getstate() == state


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_loader_accepts_every_tile(seed: int) -> None:
    tile = make_tile(Recipe(seed=seed, pressure=1.05), name="t", tile=seed)
    assert capture_from_json(capture_to_json(tile)) == tile


@pytest.mark.parametrize(("pressure", "seed"), [(0.6, 0), (0.8, 1), (0.95, 2), (1.08, 3)])
def test_the_lower_bound_hits_the_pressure(pressure: float, seed: int) -> None:
    recipe = Recipe(pressure=pressure, seed=seed, available=470_000)
    report = bound(make_tile(recipe))
    target = round(pressure * 470_000)
    # Exact up to the alignment of the request grown to reach it.
    assert target - 32 < report.lower_bound <= target
    assert report.available == 470_000


def test_memory_is_an_ipu_tile() -> None:
    memory = ipu_memory(482_496, 16_384)
    assert memory.size == TILE_BYTES
    assert memory.interleaved_offset == INTERLEAVED_OFFSET
    low = [e for e in memory.elements if e < INTERLEAVED_OFFSET]
    high = [e for e in memory.elements if e >= INTERLEAVED_OFFSET]
    assert low == list(range(0, INTERLEAVED_OFFSET, 16_384))
    assert high == list(range(INTERLEAVED_OFFSET, TILE_BYTES, 32_768))
    assert memory.available == 482_496
    aperture = [r for r in memory.ranges if r.classes is not None]
    assert [(r.size, r.classes) for r in aperture] == [(16_384, ("scratch",))]
    # Code and vertex state come first: nothing is available at address 0.
    assert min(r.start for r in memory.ranges) > 0


@pytest.mark.parametrize(
    ("available", "aperture"), [(700_000, 0), (400_000, 500_000), (620_000, 0)]
)
def test_impossible_memory_is_refused(available: int, aperture: int) -> None:
    with pytest.raises(ValueError):
        ipu_memory(available, aperture)


def _tile() -> Capture:
    return make_tile(Recipe(seed=4, requests=500, layers=24))


def test_request_kinds_follow_the_seed() -> None:
    tile = _tile()
    horizon = tile.horizon
    by_cls: dict[str, list[str]] = {}
    for r in tile.requests:
        by_cls.setdefault(r.cls, []).append(r.id)
    assert len(tile.requests) == 500
    assert set(by_cls) == {"resident", "activation", "scratch", "output"}
    for r in tile.requests:
        if r.cls == "resident":
            assert (r.start, r.end, r.alignment) == (0, horizon, 8)
            assert r.id in tile.sequence_of
        elif r.cls == "scratch":
            assert (r.alignment, r.end - r.start) == (32, 1)
        elif r.cls == "output":
            assert r.end == horizon
        assert r.size % r.alignment == 0
    assert len(tile.sequences) == 24
    for seq in tile.sequences:
        assert {tile.request_by_id[m].cls for m in seq.members} == {"resident"}
    assert any(r.interleaved for r in tile.requests)
    assert all(r.cls == "activation" for r in tile.requests if r.interleaved)


def test_conflicts_join_a_layers_weights_and_its_input() -> None:
    tile = _tile()
    pairs = {(c.a, c.b) for c in tile.conflicts}
    assert tile.sequences and tile.conflicts  # the loops below check something
    for seq in tile.sequences:
        layer = seq.id.split(".")[0]
        assert (seq.id, f"{layer}.act") in pairs
    for c in tile.conflicts:
        a = tile.members(c.a)
        b = tile.members(c.b)
        # Operands read together are live together.
        first, second = tile.request_by_id[a[0]], tile.request_by_id[b[0]]
        assert first.lives_with(second)


def test_model_tiles_are_named_and_independent() -> None:
    short = list(synth_model(tiles=4, seed=9))
    long = list(islice(synth_model(tiles=20, seed=9), 4))
    assert [c.name for c in short] == [f"model-tile{k:04d}" for k in range(4)]
    assert [c.tile for c in short] == [0, 1, 2, 3]
    assert short == long
    assert list(synth_model(tiles=2, seed=10)) != short[:2]


def test_model_mix_has_fitting_tight_and_over_capacity_tiles() -> None:
    pressures = [model_recipe(k, seed=1).pressure for k in range(400)]
    mix = Mix()
    fits = sum(mix.fits[0] <= p <= mix.fits[1] for p in pressures)
    tight = sum(mix.tight[0] <= p <= mix.tight[1] for p in pressures)
    over = sum(p >= mix.over[0] for p in pressures)
    assert fits + tight + over == 400
    assert fits > 250 and 30 < tight < 100 and 10 < over < 60


def _production_fits(prepared: Prepared) -> bool:
    return any(run_strategy(prepared, s).fits for s in prepared.capture.production)


def test_tiles_fit_are_fragmented_or_over_capacity() -> None:
    seen = set()
    for tile in synth_model(tiles=40, seed=1):
        prepared = Prepared.of(tile)
        report = bound(tile)
        if _production_fits(prepared):
            seen.add("fits")
        elif report.lower_bound > report.available:
            seen.add("capacity")
        elif any(run_strategy(prepared, s).fits for s in STRATEGIES):
            seen.add("fragmentation")
    assert seen == {"fits", "capacity", "fragmentation"}


# --------------------------------------------------------------------------- CLI


def test_cli_writes_bundle_folder_and_file_the_same_every_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = tmp_path / "m.jsonl"
    assert (
        main(["synth", "--tiles", "3", "--seed", "2", "--requests", "80", "-o", str(bundle)]) == 0
    )
    text = bundle.read_text()
    lines = text.splitlines()
    assert len(lines) == 3
    assert capsys.readouterr().out == f"wrote 3 captures to {bundle}\n"
    again = tmp_path / "again.jsonl"
    main(["synth", "--tiles", "3", "--seed", "2", "--requests", "80", "-o", str(again), "--json"])
    assert again.read_text() == text
    assert json.loads(capsys.readouterr().out) == {"captures": 3, "output": str(again), "seed": 2}
    assert capture_from_json(json.loads(lines[1])).name == "model-tile0001"

    folder = tmp_path / "tiles"
    assert main(["synth", "--tiles", "2", "--requests", "80", "-o", str(folder)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == [
        "model-tile0000.json",
        "model-tile0001.json",
    ]

    single = tmp_path / "one.json"
    assert main(["synth", "--tiles", "1", "--pressure", "1.1", "-o", str(single)]) == 0
    tile = read_capture(single)
    assert bound(tile).lower_bound > tile.available


@pytest.mark.parametrize(
    "argv",
    [
        ["--tiles", "0"],
        ["--tiles", "2", "-o", "x.json"],
        ["--pressure", "-1"],
    ],
)
def test_cli_usage_errors_exit_2(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ["-o", str(tmp_path / "m.jsonl")] if "-o" not in argv else []
    argv = [a if a != "x.json" else str(tmp_path / "x.json") for a in argv]
    assert main(["synth", *argv, *out]) == 2
    assert capsys.readouterr().err.startswith("tilefit: ")
