"""TPU-MLIR's allocator as the production strategy of the captures `tilefit import tpumlir`
makes: replayed from the capture alone (its `allocator` inputs, kept through saving and
loading), it gives the trace's addresses for every recorded attempt and reproduces every
failure; altered inputs no longer do; bad `allocator` keys are one line, exit 2; and a
failed attempt's LMEM is never called optimal."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from checkout import ROOT

from tilefit.formats.jsonread import parse_json
from tilefit.formats.load import capture_from_json, read_capture
from tilefit.formats.save import capture_text, capture_to_json
from tilefit.model.capture import Capture
from tilefit.model.edits import Drop, apply_edits
from tilefit.model.errors import InputError
from tilefit.schema import capture_schema
from tilefit.toolchains.base import Imported, ImportOptions
from tilefit.toolchains.tpumlir.reading import read_traces
from tilefit.toolchains.tpumlir.trace import read_trace
from tilefit.verdicts.heap import heap_standing
from tilefit.verdicts.replay import replay

RECORDED = ROOT / "examples" / "tpumlir"
TRACES = sorted(RECORDED.glob("*.lmem_assign.log"))


def _imported() -> list[Imported]:
    return [i for path in TRACES for i in read_traces([str(path)], ImportOptions()).imported]


def _reloaded(capture: Capture) -> Capture:
    return capture_from_json(parse_json(capture_text(capture)))


def test_the_capture_keeps_the_allocator_through_saving_and_loading() -> None:
    found = _imported()
    assert len(found) >= 9
    for imported in found:
        capture = imported.capture
        assert capture.production == ("tpumlir",) and capture.allocator is not None
        assert _reloaded(capture) == capture
        jsonschema.validate(capture_to_json(capture), capture_schema())
    broken = capture_to_json(found[0].capture)
    broken["allocator"]["eu"] = 16
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, capture_schema())


@pytest.mark.parametrize("trace", TRACES, ids=lambda p: p.name.removesuffix(".lmem_assign.log"))
def test_the_replay_from_the_capture_gives_the_traces_addresses(trace: Path) -> None:
    attempts = read_trace(trace)
    imported = read_traces([str(trace)], ImportOptions()).imported
    assert len(imported) == len(attempts)
    for attempt, one in zip(attempts, imported, strict=True):
        result = replay(_reloaded(one.capture))  # the capture alone: no trace, no graph
        last = result.attempts[-1]
        assert last.strategy.name == "tpumlir"
        assert dict(last.offsets) == {t.name: t.addr for t in attempt.placed}
        assert result.fits == attempt.success
        if attempt.success:  # the production placement is TPU-MLIR's plan
            assert result.placement is not None
            assert dict(result.placement.offsets) == dict(one.placement.offsets)
        else:  # the same tensor unplaced, the same addresses for those placed
            assert result.failure is not None
            assert result.failure.unit.id == attempt.rounds[-1][-1].name
            assert result.reproduced is True


def _failed() -> list[Capture]:
    return [i.capture for i in _imported() if i.capture.observed_failed is not None]


def test_altered_allocator_inputs_no_longer_reproduce() -> None:
    failed = _failed()
    assert len(failed) >= 6 and all(replay(c).reproduced for c in failed)

    def without_bank_avoidance(c: Capture) -> Capture:
        assert c.allocator is not None
        return replace(c, allocator=replace(c.allocator, allow_bank_conflict=True))

    def without_in_place_reuse(c: Capture) -> Capture:
        assert c.allocator is not None
        ops = tuple(replace(op, in_place=False) for op in c.allocator.ops)
        return replace(c, allocator=replace(c.allocator, ops=ops))

    for alter in (without_bank_avoidance, without_in_place_reuse):
        altered = [_reloaded(alter(c)) for c in failed]
        assert not all(replay(c).reproduced for c in altered), alter.__name__


def test_observed_offsets_that_differ_are_not_reproduced() -> None:
    capture = _failed()[0]
    assert capture.observed_offsets
    first, offset = capture.observed_offsets[0]
    moved = replace(capture, observed_offsets=((first, offset + 64), *capture.observed_offsets[1:]))
    assert replay(capture).reproduced is True
    assert replay(moved).reproduced is False


def test_an_edited_capture_drops_the_allocator_inputs() -> None:
    capture = _failed()[0]
    edited = apply_edits(capture, (Drop(capture.requests[0].id, "--drop"),))
    assert edited.allocator is None and edited.observed_offsets is None
    assert "tpumlir" not in edited.production
    replay(edited)  # the default production, on the requests left


def _capture_json() -> dict[str, object]:
    return capture_to_json(_failed()[0])


def _allocator(obj: dict[str, object]) -> dict[str, object]:
    found = obj["allocator"]
    assert isinstance(found, dict)
    return found


def _set_allocator_key(obj: dict[str, object], key: str, value: object) -> None:
    _allocator(obj)[key] = value


def _first_tensor(obj: dict[str, object]) -> dict[str, object]:
    tensors = _allocator(obj)["tensors"]
    assert isinstance(tensors, list)
    first: dict[str, object] = tensors[0]
    return first


BAD = [
    (lambda o: _set_allocator_key(o, "name", "xla"), "allocator.name", "unknown allocator"),
    (lambda o: _set_allocator_key(o, "eu", 16), "allocator.eu", "unknown key"),
    (lambda o: _set_allocator_key(o, "eu_bytes", 0), "allocator.eu_bytes", ">= 1"),
    (lambda o: _set_allocator_key(o, "allow_bank_conflict", 1), "allow_bank_conflict", "true or"),
    (lambda o: _set_allocator_key(o, "timesteps", []), "allocator.timesteps", "period"),
    (lambda o: _first_tensor(o).update(id="nobody"), "allocator.tensors[0].id", "unknown"),
    (lambda o: _first_tensor(o).update(first=99), "allocator.tensors[0].first", "period"),
    (lambda o: _first_tensor(o).update(bytes=10**9), "allocator.tensors[0].bytes", "<="),
    (lambda o: _allocator(o)["tensors"].pop(), "allocator.tensors", "no tensor for request"),
    (lambda o: o.pop("allocator"), "production[0]", "allocator object"),
    (lambda o: o.update(production=["nope"]), "production[0]", "ORDER/FIT"),
    (lambda o: o.update(observed={"failed": "w10", "offsets": {"zz": 0}}), "observed", "unknown"),
    (lambda o: o["origin"].update(placed=99), "origin.placed", "must be in"),
]


@pytest.mark.parametrize(("breaks", "place", "rule"), BAD)
def test_bad_allocator_keys_are_one_line(breaks: object, place: str, rule: str) -> None:
    obj = _capture_json()
    assert callable(breaks)
    breaks(obj)
    with pytest.raises(InputError) as raised:
        capture_from_json(obj)
    said = str(raised.value)
    assert place in said and rule in said and "\n" not in said


def test_bad_allocator_key_exits_2_from_the_command_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    obj = _capture_json()
    _set_allocator_key(obj, "bank_bytes", -8)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(obj))
    done = subprocess.run(
        [sys.executable, "-m", "tilefit", "diagnose", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "allocator.bank_bytes" in done.stderr
    assert read_capture(_write(tmp_path, _capture_json())).allocator is not None


def _write(folder: Path, obj: dict[str, object]) -> Path:
    path = folder / "good.json"
    path.write_text(json.dumps(obj))
    return path


def test_a_failed_attempts_lmem_is_never_optimal() -> None:
    # conv_c16_s128 on bm1684x, attempt 0: TPU-MLIR placed 4 of 6 tensors; its LMEM with the
    # 2 unplaced above equals the live lower bound, yet it is no plan
    (imported, *_) = read_traces(
        [str(RECORDED / "conv_c16_s128_bm1684x_final.mlir")], ImportOptions()
    ).imported
    capture = imported.capture
    assert capture.origin is not None and capture.origin.placed == 4
    standing = heap_standing(capture, 262_784, None)
    assert standing is not None and standing.heap == 262_784
    assert not standing.optimal
    assert standing.text.startswith("TPU-MLIR placed only 4 of 6 requests")
    complete = replace(capture, origin=replace(capture.origin, placed=None))
    said = heap_standing(complete, 262_784, None)
    assert said is not None and said.optimal  # the comparison can fail: complete, it is


def test_diagnose_says_the_failure_is_reproduced_from_the_capture(tmp_path: Path) -> None:
    import subprocess
    import sys

    capture = next(c for c in _failed() if c.name.startswith("conv_c32_s112_bm1688.attempt0"))
    first, offset = capture.observed_offsets[0] if capture.observed_offsets else ("", 0)
    moved = replace(capture, observed_offsets=((first, offset + 64), *capture.observed_offsets[1:]))
    said = []
    for one in (capture, moved):
        path = tmp_path / f"{len(said)}.json"
        path.write_text(capture_text(one))
        done = subprocess.run(
            [sys.executable, "-m", "tilefit", "diagnose", str(path)], capture_output=True, text=True
        )
        said.append(done.stdout)
    assert "production replay: TPU-MLIR's own allocator, replayed from the capture" in said[0]
    assert (
        "reproduces the observed failure: relu8_Relu unplaced, the 3 requests placed before it "
        "at the same addresses" in said[0]
    )
    assert "does NOT reproduce the observed failure" in said[1]


def test_without_who_reads_what_the_import_says_the_production_departs(tmp_path: Path) -> None:
    # the trace alone, without its _tpu_opt.mlir: the allocator's inputs lack the ops'
    # reads, the replay's order departs from TPU-MLIR's and the import says where
    trace = RECORDED / "conv_c32_s112_bm1688.lmem_assign.log"
    (tmp_path / trace.name).write_text(trace.read_text())
    bare = read_traces([str(tmp_path / trace.name)], ImportOptions()).imported
    beside = read_traces([str(trace)], ImportOptions()).imported
    said = [n for one in bare for n in one.notes if "production" in n]
    assert said and all("departs: round " in n for n in said)
    assert not [n for one in beside for n in one.notes if "departs" in n]
    assert not all(replay(one.capture).reproduced for one in bare)


def test_import_never_calls_a_failed_attempts_lmem_optimal() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tilefit",
            "import",
            "tpumlir",
            str(RECORDED / "conv_c16_s128_bm1684x_final.mlir"),
        ],
        capture_output=True,
        text=True,
    )
    first = done.stdout.split("\nconv_c16_s128_bm1684x.attempt1")[0]
    assert "its allocator failed" in first
    assert "optimal" not in first
    assert "TPU-MLIR placed only 4 of 6 requests: its LMEM is incomplete" in first


def test_a_production_placement_breaking_the_captures_rules_is_its_failure() -> None:
    # dw_c64_s112 on bm1688, attempt 1: TPU-MLIR placed every tensor, five of them in banks
    # it was to avoid; asked with those pairs as conflict edges, its plan breaks them
    from tilefit.toolchains.tpumlir.capture import capture_of
    from tilefit.toolchains.tpumlir.graph import read_graph
    from tilefit.toolchains.tpumlir.problem import problem_of
    from tilefit.verdicts.diagnose import diagnose
    from tilefit.verdicts.retry import place

    name = "dw_c64_s112_bm1688"
    attempt = read_trace(RECORDED / f"{name}.lmem_assign.log")[1]
    problem = problem_of(attempt, read_graph(RECORDED / f"{name}_tpu_opt.mlir"))
    assert problem is not None and attempt.success
    plain = _reloaded(capture_of(attempt, problem, name))
    banked = _reloaded(capture_of(attempt, problem, name, banks=True))
    assert replay(plain).fits
    broken = replay(banked)
    failure = broken.failure
    assert not broken.fits and failure is not None
    assert failure.broken is not None and failure.broken.startswith("conflict: ")
    assert diagnose(banked, time_limit=20.0).production[-1].failure == failure
    placed = place(banked)  # production failed: the fallback runs
    assert [a.strategy.name for a in placed.attempts] == ["tpumlir", "long-lived/first-fit"]
    assert placed.production_failure == failure
