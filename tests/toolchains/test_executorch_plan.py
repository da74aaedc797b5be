"""ExecuTorch's arenas planned by tilefit, on spec lists alone (no torch needed).

Hand-made spec lists pin each rule (lifetimes inclusive on the node index,
aliases inside their base, zero-byte specs at 0, the fallback to greedy's
plan with one warning line); the lists in examples/executorch/ were recorded
from real exports by ``benchmarks/executorch_models.py --record`` and hold
ExecuTorch's own greedy offsets. Every plan is checked here again by a
verifier of the test's own, written from ExecuTorch's
(``Verifier.verify_storage_reuse``): two specs whose lifetimes and bytes
overlap must be one inside the other.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from checkout import ROOT

from tilefit.cli import main
from tilefit.formats.load import read_capture, read_placement
from tilefit.model.errors import InputError
from tilefit.toolchains.executorch import read_arenas
from tilefit.toolchains.executorch.banks import CAPACITY, FITS, FRAGMENTATION, bank_verdicts
from tilefit.toolchains.executorch.capture import arena_capture
from tilefit.toolchains.executorch.plan import GREEDY, TILEFIT, memory_objects, plan_program
from tilefit.toolchains.executorch.specs import (
    Program,
    Spec,
    program_from_json,
    program_json,
    program_text,
    read_program,
)
from tilefit.verdicts.check import check

EXAMPLES = ROOT / "examples" / "executorch"
RECORDED = sorted(EXAMPLES.glob("*.executorch.json"))


def program(*specs: Spec, **kwargs: object) -> Program:
    return Program("p", 16, 0, tuple(specs), **kwargs)  # type: ignore[arg-type]


def verify(prog: Program, offsets: dict[str, int]) -> None:
    """ExecuTorch's rule: overlapping lifetimes and bytes only within one storage chain."""
    by_id = {s.id: s for s in prog.specs}

    def chain(spec: Spec) -> set[str]:
        found = {spec.id}
        while spec.base is not None:
            spec = by_id[spec.base]
            found.add(spec.id)
        return found

    specs = [s for s in prog.specs if s.size > 0]
    for k, a in enumerate(specs):
        for b in specs[k + 1 :]:
            if a.mem_id != b.mem_id and a.base is None and b.base is None:
                continue
            if a.last < b.first or b.last < a.first:
                continue
            oa, ob = offsets[a.id], offsets[b.id]
            if oa + a.size <= ob or ob + b.size <= oa:
                continue
            assert a.id in chain(b) or b.id in chain(a), (a.id, b.id)
    for s in prog.specs:
        assert offsets[s.id] % prog.alignment == 0


# A valid plan of 112 B given as greedy's offsets, where 80 B suffice (the peak: big
# with a at node 1, big with b at node 2).
MISS = program(
    Spec("big", 48, 1, 2, op="aten.mm.out", shape=(12,), dtype="float32", greedy=64),
    Spec("a", 32, 0, 1, op="aten.add.out", greedy=0),
    Spec("b", 32, 2, 3, op="aten.mul.out", greedy=32),
    Spec("c", 16, 0, 0, greedy=32),
    Spec("d", 16, 3, 3, greedy=0),
)


def test_lifetimes_are_inclusive_on_the_node_index() -> None:
    arena = arena_capture(MISS, 1, MISS.specs)
    assert arena.capture is not None
    big = arena.capture.request_by_id["big"]
    assert (big.start, big.end, big.size, big.alignment) == (1, 3, 48, 16)
    assert arena.capture.request_by_id["d"].end == 4  # live at node 3, inclusive
    assert arena.greedy_top == 112
    assert arena.capture.origin is not None and arena.capture.origin.heap == 112
    assert arena.capture.origin.tool == "ExecuTorch"
    assert "aten.mm.out float32 12" in (big.label or "")


def test_tilefit_plans_below_greedy_and_every_plan_is_refereed() -> None:
    plan = plan_program(MISS, time_limit=5)
    (arena,) = plan.arenas
    assert arena.source == TILEFIT
    assert arena.greedy_top == 112 and arena.top == 80 and arena.proven
    assert plan.sizes() == [0, 80] and plan.sizes(GREEDY) == [0, 112]
    verify(MISS, dict(arena.offsets))
    held = arena_capture(MISS, 1, MISS.specs).capture
    assert held is not None
    from tilefit.toolchains.executorch.plan import plan_placement

    placement = plan_placement(arena)
    assert placement is not None and check(held, placement).valid


def test_greedy_kept_when_it_is_already_least() -> None:
    prog = program(Spec("x", 32, 0, 1, greedy=0), Spec("y", 32, 1, 2, greedy=32))
    (arena,) = plan_program(prog).arenas
    assert arena.source == GREEDY and arena.proven and arena.top == 64
    assert arena.warning is None and dict(arena.offsets) == {"x": 0, "y": 32}


def test_aliases_sit_in_their_base_and_zero_byte_specs_at_zero() -> None:
    prog = program(
        Spec("base", 64, 0, 4, greedy=0),
        Spec("view", 32, 2, 6, base="base", base_offset=32, greedy=32),  # extends base's life
        Spec("inner", 16, 5, 6, base="view", base_offset=16, greedy=48),  # two links deep
        Spec("other", 64, 5, 6, greedy=64),
        Spec("empty", 0, 1, 3, greedy=64),
    )
    arena = arena_capture(prog, 1, prog.specs)
    assert arena.capture is not None
    assert [r.id for r in arena.capture.requests] == ["base", "other"]
    base = arena.capture.request_by_id["base"]
    assert (base.start, base.end) == (0, 7)  # the union with its aliases' lifetimes
    assert arena.aliases["inner"].root == "base" and arena.aliases["inner"].offset == 48
    assert arena.empty == ("empty",)
    assert "holds view, inner" in (base.label or "")
    plan = plan_program(prog)
    offsets = plan.arenas[0].offsets
    assert offsets["view"] == offsets["base"] + 32 and offsets["inner"] == offsets["base"] + 48
    verify(prog, dict(offsets))


def test_zero_byte_specs_go_to_offset_zero_when_tilefit_plans() -> None:
    prog = replace(MISS, specs=(*MISS.specs, Spec("bn_unused", 0, 1, 2, greedy=64)))
    (arena,) = plan_program(prog, time_limit=5).arenas
    assert arena.source == TILEFIT and arena.offsets["bn_unused"] == 0
    assert "bn_unused" not in arena_capture(prog, 1, prog.specs).capture.request_by_id  # type: ignore[union-attr]


def test_reserved_bytes_and_extra_padding_as_executorch_sizes_arenas() -> None:
    prog = replace(MISS, reserved={1: 256}, extra_padding=64)
    shifted = tuple(replace(s, greedy=(s.greedy or 0) + 256) for s in MISS.specs)
    prog = replace(prog, specs=shifted)
    plan = plan_program(prog, time_limit=5)
    assert plan.sizes(GREEDY) == [0, 256 + 112 + 64]
    assert plan.sizes() == [0, 256 + 80 + 64]
    assert min(plan.arenas[0].offsets.values()) >= 256


def test_arenas_by_mem_id_and_aliases_follow_their_base() -> None:
    prog = program(
        Spec("a", 32, 0, 3, greedy=0),
        Spec("b", 32, 0, 3, mem_id=2, greedy=0),
        Spec("c", 16, 1, 2, mem_id=2, base="a", greedy=16),  # in a's arena, as greedy does
    )
    plan = plan_program(prog)
    assert [a.mem_id for a in plan.arenas] == [1, 2]
    assert plan.arenas[0].specs == 2 and plan.sizes() == [0, 32, 32]


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        (Spec("dyn", 0, 1, 2, op="aten.cat.out", problem="a dynamic shape", greedy=0), "dynamic"),
        (Spec("al", 16, 1, 2, base="nowhere", greedy=0), "not planned in this arena"),
        (Spec("al", 16, 1, 2, base="a", base_offset=8, greedy=8), "off the alignment"),
        (Spec("al", 48, 1, 2, base="a", base_offset=0, greedy=0), "overrun"),
        (Spec("al", 16, 1, 2, base="a", base_offset=16, greedy=0), "greedy puts it at 0"),
    ],
)
def test_what_cannot_be_honoured_keeps_greedy_with_one_line(
    bad: Spec, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    prog = replace(MISS, specs=(*MISS.specs, bad))
    (arena,) = plan_program(prog, time_limit=5).arenas
    assert arena.source == GREEDY and arena.top == 112
    assert dict(arena.offsets) == {s.id: s.greedy for s in prog.specs}  # exactly greedy's
    assert arena.warning is not None and "\n" not in arena.warning
    assert arena.warning.startswith("tilefit: arena 1 keeps ExecuTorch's greedy plan: node ")
    assert bad.id in arena.warning and words in arena.warning


def test_a_greedy_plan_the_referee_refuses_means_the_capture_is_not_trusted() -> None:
    wrong = replace(MISS, specs=tuple(replace(s, greedy=0) for s in MISS.specs))
    (arena,) = plan_program(wrong, time_limit=5).arenas
    assert arena.source == GREEDY and arena.warning is not None
    assert "fails tilefit's referee" in arena.warning


def test_memory_objects_share_an_id_exactly_where_bytes_overlap() -> None:
    sizes = {"a": 32, "b": 16, "c": 32, "z": 0, "d": 16}
    offsets = {"a": 0, "b": 16, "c": 32, "z": 32, "d": 40}
    ids = memory_objects(sizes, offsets)
    assert ids["a"] == ids["b"] and ids["c"] == ids["d"] and ids["a"] != ids["c"]


def test_the_spec_file_round_trips_and_bad_ones_name_the_path(tmp_path: Path) -> None:
    prog = replace(MISS, node_names=tuple(f"n{k}" for k in range(4)), reserved={1: 32})
    assert program_from_json(json.loads(program_text(prog))) == prog
    assert program_from_json(program_json(prog)) == prog
    obj = program_json(prog)
    obj["specs"][1]["id"] = "big"
    with pytest.raises(InputError, match=r"specs\[1\]\.id: duplicate id 'big'"):
        program_from_json(obj)
    obj = program_json(prog)
    obj["specs"][0]["lifetime"] = [3, 1]
    with pytest.raises(InputError, match=r"specs\[0\]\.lifetime"):
        program_from_json(obj)
    path = tmp_path / "x.executorch.json"
    path.write_text('{"format": "other"}')
    with pytest.raises(InputError, match=r"x\.executorch\.json"):
        read_program(path)


def test_banks_fits_fragmentation_and_capacity_with_the_nodes_to_spill() -> None:
    prog = replace(MISS, node_names=("in", "mm", "mul", "out"))
    plan = plan_program(prog, time_limit=5)
    fits, frag, short = bank_verdicts(plan, [112, 80, 64], time_limit=5)
    assert (fits.verdict, fits.top) == (FITS, 112)
    assert (frag.verdict, frag.top) == (FRAGMENTATION, 80) and frag.placement is not None
    assert short.verdict == CAPACITY and short.must_leave == 16
    (spill,) = short.spills
    assert (spill.first_node, spill.last_node) == ("mm", "mul")
    assert {t.id for t in spill.tensors} >= {"big"}
    text = "\n".join(short.lines())
    assert "CAPACITY" in text and "nodes 1-2 (mm .. mul): 16 B must spill" in text
    # Greedy's own plan first, then tilefit's, as diagnose says it of an import.
    assert fits.text.startswith("arena 1 in bank 0 (112 B): ExecuTorch's own arena FITS; ")
    assert frag.text.startswith(
        "arena 1 in bank 1 (80 B): ExecuTorch's own arena DOES NOT FIT; tilefit's plan FITS: "
    )
    assert short.text.startswith(
        "arena 1 in bank 2 (64 B): ExecuTorch's own arena DOES NOT FIT; tilefit: CAPACITY: "
    )


@pytest.mark.parametrize("path", RECORDED, ids=[p.name.split(".")[0] for p in RECORDED])
def test_recorded_exports_never_above_greedy_and_verified(path: Path) -> None:
    prog = read_program(path)
    plan = plan_program(prog, time_limit=10)
    assert not plan.warnings
    offsets = plan.offsets
    assert set(offsets) == {s.id for s in prog.specs}
    verify(prog, offsets)
    for arena in plan.arenas:
        assert arena.top <= arena.greedy_top
        assert arena.lower_bound <= arena.top
        if arena.greedy_top <= arena.lower_bound:
            assert arena.top == arena.lower_bound


def test_recorded_llm_step_drops_to_the_bound() -> None:
    prog = read_program(EXAMPLES / "tiny_llm.default.executorch.json")
    (arena,) = plan_program(prog, time_limit=10).arenas
    assert arena.greedy_top > arena.lower_bound
    assert arena.source == TILEFIT and arena.top == arena.lower_bound and arena.proven


def test_import_executorch_writes_captures_with_greedys_placement(tmp_path: Path) -> None:
    source = EXAMPLES / "tiny_llm.default.executorch.json"
    assert main(["import", "executorch", str(source), "-o", str(tmp_path)]) == 0
    capture = read_capture(tmp_path / "tiny_llm.default.arena1.json")
    placement = read_placement(tmp_path / "tiny_llm.default.arena1.placement.json")
    assert capture.origin is not None and capture.origin.plan == "arena"
    assert check(capture, placement).valid
    (imported,) = read_arenas(read_program(source), str(source))
    assert imported.capture == capture


def test_import_executorch_with_a_capacity_asks_about_the_whole_arena(tmp_path: Path) -> None:
    source = EXAMPLES / "tiny_llm.default.executorch.json"
    prog = read_program(source)
    (whole,) = read_arenas(prog, str(source))
    assert whole.capture.origin is not None
    (asked,) = read_arenas(prog, str(source), capacity=whole.capture.origin.heap - 64)
    assert asked.capture.memory.size == whole.capture.origin.heap - 64 - prog.extra_padding


def test_import_executorch_bad_input_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.executorch.json"
    bad.write_text('{"format": "tilefit-executorch-specs", "version": 1, "name": "x"}')
    assert main(["import", "executorch", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "specs: required key is missing" in err


def test_recorded_inputs_start_at_zero_and_mutable_buffers_live_to_the_end() -> None:
    prog = read_program(EXAMPLES / "kv_decode.default.executorch.json")
    last = len(prog.node_names) - 1
    caches = [s for s in prog.specs if s.op == "mutable buffer"]
    assert len(caches) == 2 and all((s.first, s.last) == (0, last) for s in caches)
    assert all(s.first == 0 for s in prog.specs if s.op == "input")
    (arena,) = plan_program(prog).arenas
    held = arena.capture.capture if arena.capture is not None else None
    assert held is not None
    assert all(held.request_by_id[s.id].end == held.horizon for s in caches)


def test_an_alias_of_a_zero_byte_tensor_holds_nothing_either() -> None:
    prog = replace(
        MISS,
        specs=(
            *MISS.specs,
            Spec("nothing", 0, 1, 2, greedy=64),
            Spec("view", 0, 2, 3, base="nothing", greedy=64),
        ),
    )
    (arena,) = plan_program(prog, time_limit=5).arenas
    assert arena.source == TILEFIT and arena.offsets["nothing"] == arena.offsets["view"] == 0
