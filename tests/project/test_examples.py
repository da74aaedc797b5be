"""The reconstructed seed captures reproduce every figure the investigation published.

examples/0-0.json (the proposed tile mapping) fails by fragmentation only;
examples/1-0.json (the later MLP-down cast) is over capacity at its peak;
examples/1-0-baseline.json (1-0 with the early cast kept) fits.
examples/reconstruct.py rebuilds all three, byte for byte.
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
from checkout import ROOT

from tilefit.bounds.deficit import bound
from tilefit.engine.attempt import Attempt, Prepared, run_strategy
from tilefit.engine.strategy import STRATEGIES
from tilefit.formats.load import read_capture
from tilefit.model.capture import Capture
from tilefit.model.units import split_sequences
from tilefit.verdicts.check import check

EXAMPLES = ROOT / "examples"
MAPPING, LATE_CAST, BASELINE = "0-0.json", "1-0.json", "1-0-baseline.json"
BOTH = (MAPPING, LATE_CAST)
MK2_TILE = 638_976


@cache
def capture(name: str) -> Capture:
    return read_capture(EXAMPLES / name)


@cache
def attempts(name: str, split: bool = False) -> dict[str, Attempt]:
    cap = capture(name)
    prepared = Prepared.of(split_sequences(cap) if split else cap)
    return {s.name: run_strategy(prepared, s) for s in STRATEGIES}


def production(name: str) -> list[Attempt]:
    return [attempts(name)[strategy] for strategy in capture(name).production]


def unit_size(cap: Capture, ident: str) -> int:
    return sum(cap.request_by_id[m].size for m in cap.members(ident))


# --------------------------------------------------------------------------- both


@pytest.mark.parametrize("name", BOTH)
def test_an_ipu_mk2_tile_with_elements_interleaving_and_a_scratch_only_host_aperture(
    name: str,
) -> None:
    memory = capture(name).memory
    assert memory.size == MK2_TILE
    offset = memory.interleaved_start
    assert 0 < offset < memory.size
    low = [e for e in memory.elements if e < offset]
    high = [e for e in memory.elements if e >= offset]
    assert low == list(range(0, offset, 16_384))
    assert high == list(range(offset, memory.size, 32_768))
    # Code and vertex state sit below the first range; exchange buffers leave a gap.
    assert min(r.start for r in memory.ranges) > 0
    apertures = [r for r in memory.ranges if r.classes is not None]
    assert [r.classes for r in apertures] == [("scratch",)]
    assert sum(r.size for r in memory.ranges) < memory.size - apertures[0].size


@pytest.mark.parametrize("name", BOTH)
def test_realistic_content(name: str) -> None:
    cap = capture(name)
    assert 50 <= len(cap.requests) <= 400
    assert cap.production == ("lifetime/first-fit", "alignment/first-fit")
    by_id = cap.request_by_id
    # Resident weights: Repeat sequences, 8-byte aligned, alive for the whole horizon.
    assert cap.sequences
    for seq in cap.sequences:
        assert seq.repeat and seq.repeat.startswith("Repeat")
        for member in (by_id[m] for m in seq.members):
            assert (member.cls, member.alignment) == ("resident", 8)
            assert (member.start, member.end) == (0, cap.horizon)
            assert member.label and member.label.endswith("]") and "/weight[" in member.label
    outputs = [r for r in cap.requests if r.cls == "output"]
    assert outputs and all(r.end == cap.horizon and r.start > 0 for r in outputs)
    activations = [r for r in cap.requests if r.cls == "activation"]
    assert any(r.interleaved for r in activations) and not all(r.interleaved for r in activations)
    scratch = [r for r in cap.requests if r.cls == "scratch"]
    assert scratch and all(r.alignment == 32 and r.end - r.start <= 2 for r in scratch)
    # Bank-conflict edges between co-accessed operands: weights and their input activations.
    sequence_ids = {s.id for s in cap.sequences}
    assert any(c.a in sequence_ids and by_id[c.b].cls == "activation" for c in cap.conflicts)
    assert all(r.label for r in cap.requests)


@pytest.mark.parametrize("name", BOTH)
def test_observed_failure_is_the_fallbacks_failed_unit(name: str) -> None:
    fallback = production(name)[-1]
    assert fallback.failure is not None
    assert capture(name).observed_failed == fallback.failure.unit.id


def test_the_generator_rebuilds_every_capture_byte_for_byte(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("reconstruct", EXAMPLES / "reconstruct.py")
    assert spec is not None and spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    try:
        spec.loader.exec_module(module)
        written = module.write(tmp_path)
    finally:
        del sys.modules[spec.name]
    assert sorted(p.name for p in written) == sorted((*BOTH, BASELINE))
    for name in (*BOTH, BASELINE):
        assert (tmp_path / name).read_bytes() == (EXAMPLES / name).read_bytes()


# --------------------------------------------------------------------------- 0-0


def test_mapping_available_storage_and_lower_bound() -> None:
    report = bound(capture(MAPPING))
    assert report.available == 482_496
    assert report.lower_bound == 458_368
    assert report.deficit == 0


def test_mapping_production_fails_last_on_the_output_weight_sequence() -> None:
    primary, fallback = production(MAPPING)
    assert primary.strategy.name == "lifetime/first-fit" and not primary.fits
    assert fallback.strategy.name == "alignment/first-fit" and fallback.failure is not None
    unit = fallback.failure.unit
    assert unit.is_sequence and unit.size == 27_648
    assert unit.id in {s.id for s in capture(MAPPING).sequences}
    assert all(m.label and m.label.startswith("head/out_proj/weight[") for m in unit.members)


def test_mapping_only_long_lived_first_fit_fits() -> None:
    fitting = [name for name, attempt in attempts(MAPPING).items() if attempt.fits]
    assert len(attempts(MAPPING)) == 16
    assert fitting == ["long-lived/first-fit"]
    assert not attempts(MAPPING)["resident-first/first-fit"].fits
    assert not attempts(MAPPING)["resident-first/best-fit"].fits


def test_mapping_long_lived_placement_is_valid() -> None:
    placement = attempts(MAPPING)["long-lived/first-fit"].placement
    assert placement is not None
    assert check(capture(MAPPING), placement).valid


def test_mapping_with_sequences_split_no_strategy_fits() -> None:
    split = attempts(MAPPING, split=True)
    assert len(split) == 16
    assert [name for name, attempt in split.items() if attempt.fits] == []


# --------------------------------------------------------------------------- 1-0


def test_late_cast_available_storage_lower_bound_and_deficit() -> None:
    report = bound(capture(LATE_CAST))
    assert report.available == 498_872
    assert report.lower_bound == 515_200
    assert report.deficit == 16_328


def test_late_cast_primary_fails_on_scratch_and_fallback_on_the_qkv_sequence() -> None:
    primary, fallback = production(LATE_CAST)
    assert primary.failure is not None and primary.failure.unit.cls == "scratch"
    assert fallback.failure is not None
    unit = fallback.failure.unit
    assert unit.is_sequence and unit.size == 82_944
    assert all(m.label and "/attn_qkv/weight[" in m.label for m in unit.members)


def test_late_cast_peak_holds_the_fp16_operand_its_fp8_result_and_residuals() -> None:
    cap = capture(LATE_CAST)
    report = bound(cap)
    live = {c.id: c for c in report.contributors}
    fp16 = [c for c in live.values() if c.label and "input.fp16" in c.label]
    fp8 = [c for c in live.values() if c.label and "input.fp8" in c.label]
    assert [c.size for c in fp16] == [125_952]
    assert [c.size for c in fp8] == [62_976 + 8]
    assert any(c.cls == "activation" and c.label and "residual" in c.label for c in live.values())
    # The QKV weights are live there too, but they are not what grew.
    failed = production(LATE_CAST)[-1].failure
    assert failed is not None and unit_size(cap, failed.unit.id) < fp16[0].size


# --------------------------------------------------------------------------- 1-0-baseline


def test_baseline_is_1_0_with_only_the_casts_lifetimes_moved() -> None:
    late, base = capture(LATE_CAST), capture(BASELINE)
    assert base.name == "1-0-baseline" and base.observed_failed is None
    assert (base.memory, base.horizon, base.tile) == (late.memory, late.horizon, late.tile)
    assert (base.sequences, base.conflicts, base.production) == (
        late.sequences,
        late.conflicts,
        late.production,
    )
    assert [r.id for r in base.requests] == [r.id for r in late.requests]
    moved = {}
    for b, r in zip(base.requests, late.requests, strict=True):
        if (b.start, b.end) != (r.start, r.end):
            moved[r.id] = (b.start, b.end, r.start, r.end)
        assert (b.size, b.alignment, b.cls, b.interleaved, b.label) == (
            r.size,
            r.alignment,
            r.cls,
            r.interleaved,
            r.label,
        )
    assert len(moved) == 12
    for mb in range(4):
        p = f"m{mb}.l3"
        s = late.request_by_id[f"{p}.mlp_down.in16"].start
        # Early cast: operand and staging 4 steps earlier; the FP8 result from the cast on.
        assert moved[f"{p}.mlp_down.in16"] == (s - 4, s - 2, s, s + 2)
        assert moved[f"{p}.cast.staging"] == (s - 4, s - 2, s, s + 2)
        assert moved[f"{p}.mlp_down.in8"] == (s - 2, s + 4, s + 1, s + 4)


def test_baseline_has_no_overloaded_window_and_production_fits() -> None:
    report = bound(capture(BASELINE))
    assert report.windows == () and report.deficit == 0 and report.support_deficit == 0
    assert report.lower_bound < report.available
    fallback = production(BASELINE)[-1]
    assert fallback.strategy.name == "alignment/first-fit" and fallback.fits
    assert fallback.placement is not None
    assert check(capture(BASELINE), fallback.placement).valid


def test_baseline_diagnoses_fits() -> None:
    from tilefit.verdicts.diagnose import diagnose

    d = diagnose(capture(BASELINE), search=False)
    assert d.verdict == "fits"
    assert d.strategy == "alignment/first-fit"
