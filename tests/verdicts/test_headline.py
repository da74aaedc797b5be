"""The answer on an import, in two parts and in this order: the toolchain's own plan in the
memory asked about, then tilefit's (issue 38, item 1), on an import of each toolchain.

Before, `diagnose` opened with tilefit's verdict alone: "FITS" over a TFLM model whose own
plan does not fit the arena asked about (it fits only with tilefit's exported plan), and
the next line said TFLM's head needed more than was available.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import jsonschema
import pytest
from checkout import ROOT
from iree_programs import chain, needs_iree
from xla_dumps import write_dump

from tilefit.cli import main
from tilefit.formats.load import read_capture
from tilefit.output.schema import output_schema
from tilefit.verdicts.verdict import Verdict

EXAMPLES = ROOT / "examples"
FAST = ("--workers", "1", "--time-limit", "5")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def imported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, toolchain: str, source: Path, capacity: int
) -> Path:
    """The one capture ``tilefit import TOOLCHAIN SOURCE --capacity N`` writes."""
    out = tmp_path / "at"
    code, _ = run(
        capsys, "import", toolchain, str(source), "--capacity", str(capacity), "-o", str(out)
    )
    assert code == 0
    (capture,) = sorted(p for p in out.glob("*.json") if not p.name.endswith(".placement.json"))
    return capture


def heap_and_bound(
    capsys: pytest.CaptureFixture[str], toolchain: str, source: Path
) -> tuple[int, int]:
    code, out = run(capsys, "import", toolchain, str(source), "--json")
    assert code == 0
    (row,) = json.loads(out)["imports"]
    return row["heap"], row["lower_bound"]


def assert_two_parts(
    capsys: pytest.CaptureFixture[str], capture: Path, tool: str, plan: str, own: str, ours: str
) -> None:
    """diagnose and solve open with the toolchain's plan, then tilefit's; --json carries both
    (valid against the schema), in the same words."""
    for command in ("diagnose", "solve"):
        _, out = run(capsys, command, str(capture), *FAST)
        lines = out.splitlines()
        # solve climbs from the strategies: the search's proof says infeasible, not capacity
        said = ours.replace("CAPACITY", "INFEASIBLE") if command == "solve" else ours
        assert lines[0].endswith(f": {tool}'s own {plan} {own}; {said}"), lines[0]
        assert lines[1].startswith(f"  1. {tool}'s own plan: its {plan} of ")
        assert lines[2].startswith("  2. tilefit")
    _, out = run(capsys, "diagnose", str(capture), *FAST, "--json")
    obj = json.loads(out)
    jsonschema.validate(obj, output_schema("diagnose"))
    head = obj["headline"]
    assert head["title"] == f"{tool}'s own {plan} {own}; {ours}"
    assert lines[1] == f"  1. {head['own']['text']}"
    assert head["own"]["fits"] is (own == "FITS")


def test_tflm_s_head_does_not_fit_where_tilefit_s_plan_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    if importlib.util.find_spec("tflite_micro") is None:
        pytest.skip("tflite-micro is not installed: pip install 'tilefit[tflm]'")
    model = EXAMPLES / "tflm" / "streaming.tflite"
    heap, lower = heap_and_bound(capsys, "tflm", model)
    big = read_capture(imported(capsys, tmp_path / "big", "tflm", model, 1 << 20))
    tail = (1 << 20) - big.memory.size  # --capacity is the whole arena, tail included
    capture = imported(capsys, tmp_path, "tflm", model, tail + (heap + lower) // 2)
    assert_two_parts(capsys, capture, "TFLM", "head", "DOES NOT FIT", "tilefit's plan FITS")
    _, out = run(capsys, "diagnose", str(capture), *FAST)
    assert "export it: tilefit export tflm MODEL.tflite PLACEMENT -o OUT.tflite" in out
    assert "FITS" not in out.splitlines()[0].split(";")[0]


def test_iree_s_slab_does_not_fit_where_tilefit_s_plan_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    needs_iree()
    program = tmp_path / "chain.mlir"
    program.write_text(chain([64, 256, 64, 512, 64, 128, 64, 1024, 64]))
    heap, lower = heap_and_bound(capsys, "iree", program)
    assert heap > lower
    capture = imported(capsys, tmp_path, "iree", program, (heap + lower) // 2)
    assert_two_parts(capsys, capture, "IREE", "slab", "DOES NOT FIT", "tilefit's plan FITS")
    # Below the live bound, neither fits: the toolchain's answer still comes first.
    capture = imported(capsys, tmp_path / "low", "iree", program, lower - 64)
    assert_two_parts(capsys, capture, "IREE", "slab", "DOES NOT FIT", "tilefit: CAPACITY")


def test_executorch_s_arena_does_not_fit_where_tilefit_s_plan_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    specs = EXAMPLES / "executorch" / "encoder_32.default.executorch.json"
    heap, lower = heap_and_bound(capsys, "executorch", specs)
    assert heap > lower
    capture = imported(capsys, tmp_path, "executorch", specs, (heap + lower) // 2)
    assert_two_parts(capsys, capture, "ExecuTorch", "arena", "DOES NOT FIT", "tilefit's plan FITS")
    _, out = run(capsys, "diagnose", str(capture), *FAST)
    assert "MemoryPlanningPass(memory_planning_algo=planner())" in out.splitlines()[2]
    # The import says the toolchain's own answer at once, in the same order.
    _, out = run(capsys, "import", "executorch", str(specs), "--capacity", str(heap - 64))
    asks = next(line for line in out.splitlines() if "asks:" in line)
    assert asks.endswith(
        "? ExecuTorch's own arena does not (64 B over); tilefit diagnose answers for tilefit's plan"
    )


def test_xla_s_heap_in_and_over_the_memory_asked_about(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    dump = tmp_path / "dump"
    write_dump(dump)
    heap, _ = heap_and_bound(capsys, "xla", dump)
    capture = imported(capsys, tmp_path, "xla", dump, heap)
    assert_two_parts(capsys, capture, "XLA", "heap", "FITS", "tilefit's plan FITS")
    capture = imported(capsys, tmp_path / "low", "xla", dump, heap - 16)
    assert_two_parts(capsys, capture, "XLA", "heap", "DOES NOT FIT", "tilefit: CAPACITY")


def test_a_capture_not_imported_has_no_headline(capsys: pytest.CaptureFixture[str]) -> None:
    _, out = run(capsys, "diagnose", str(EXAMPLES / "0-0.json"), *FAST, "--json")
    assert json.loads(out)["headline"] is None


@pytest.mark.parametrize(
    ("verdict", "top", "adopt", "heap", "second"),
    [
        (
            Verdict.FRAGMENTATION,
            1024,
            "export it: tilefit export tflm M {placement} -o O",
            1280,
            "tilefit's plan: 1,024 B (proven least), 256 B less than TFLM's, fits; export it: "
            "tilefit export tflm M p.json -o O",
        ),
        (
            Verdict.FITS,
            1024,
            None,
            1280,
            "tilefit's plan: 1,024 B (proven least), 256 B less than TFLM's, fits; TFLM takes "
            "no plan back: tilefit cannot export it",
        ),
        (
            Verdict.FITS,
            1024,
            None,
            1024,
            "tilefit's plan: 1,024 B (proven least), as TFLM's, fits; nothing to gain",
        ),
        (
            Verdict.INFEASIBLE,
            None,
            None,
            1280,
            "tilefit: no plan can fit (infeasible: the search proves it, below)",
        ),
        (
            Verdict.UNDETERMINED,
            None,
            None,
            1280,
            "tilefit: no plan found and none proven impossible (undetermined, below)",
        ),
    ],
)
def test_the_second_part_says_what_to_do_with_tilefit_s_plan(
    verdict: Verdict, top: int | None, adopt: str | None, heap: int, second: str
) -> None:
    from tilefit.verdicts.headline import Headline

    head = Headline("TFLM", "head", heap, 1100, verdict, top, True, 0, adopt)
    assert head.lines("p.json")[1] == f"  2. {second}"
    assert head.lines("p.json")[0].startswith("  1. TFLM's own plan: its head of ")


def test_solve_and_diagnose_say_the_same_bytes_must_leave_where_padding_alone_overfills(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Three 8-byte requests aligned to 16 live together in 24 bytes: their 24 live bytes
    fit, but their bases must be 16 apart, so the padding alone proves the capacity, and
    no window is overloaded. ``solve`` took the windows alone and left out the 16 B that
    ``diagnose`` gave."""
    from tilefit.formats.save import write_capture
    from tilefit.model.capture import Capture, Memory, Origin, Range, Request

    requests = tuple(Request(f"t{k}", 8, 0, 2, 16) for k in range(3))
    capture = Capture("padded", 2, Memory(24, (Range(0, 24),)), requests, origin=Origin("XLA", 40))
    path = tmp_path / "padded.json"
    write_capture(capture, path)
    said = {}
    for command in ("diagnose", "solve"):
        _, out = run(capsys, command, str(path), *FAST, "--json")
        head = json.loads(out)["headline"]
        assert head["tilefit"]["verdict"] in ("capacity", "infeasible"), command
        said[command] = head["tilefit"]["leaving"]
    assert said["diagnose"] == said["solve"] == 16
