"""TFLM end to end, on its own interpreter: import, minimise, export, run, compare.

The core cases run on models this test makes (``tilefit.generate.tflm``);
the real models (wake words, face landmarks, sine) run when
``benchmarks/tflm_fetch.py`` has put them in ``TILEFIT_TFLM_MODELS``
(``.ci/run`` does), and skip with that reason when it has not.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from checkout import ROOT

pytest.importorskip(
    "tflite_micro", reason="tflite-micro is not installed: pip install 'tilefit[tflm]'"
)

from tilefit.bounds.deficit import bound
from tilefit.cli import main
from tilefit.formats.load import read_capture, read_placement
from tilefit.formats.save import write_placement
from tilefit.generate.tflm import streaming_model
from tilefit.model.placement import Placement
from tilefit.toolchains.tflm import read_model
from tilefit.toolchains.tflm.arena import planned
from tilefit.toolchains.tflm.graph import read_graph
from tilefit.toolchains.tflm.greedy import greedy_offsets, head
from tilefit.toolchains.tflm.offline import check_plan, plan_words, with_plan
from tilefit.toolchains.tflm.runtime import run_model

MODELS = Path(os.environ.get("TILEFIT_TFLM_MODELS", ROOT / ".models" / "tflm"))
# planned tensors and TFLM's head, as TFLM's interpreter reports it
REAL = {
    "alexa": (33, 3648),
    "hey_jarvis": (33, 3424),
    "hey_mycroft": (33, 4288),
    "okay_nabu": (52, 3840),
    "face_landmark": (98, 1769472),
    "iris_landmark": (170, 786432),
    "sine_float": (4, 128),
}


@pytest.mark.parametrize("seed", range(8))
def test_the_reproduced_plan_has_the_head_the_interpreter_reports(seed: int) -> None:
    data = streaming_model(seed, operators=14)
    buffers = planned(read_graph(data, "m"), "m")
    assert head(buffers, greedy_offsets(buffers)) == run_model(data, "m").head


def _minimal(capture_file: Path, out: Path) -> Placement:
    assert (
        main(["solve", "--minimize", str(capture_file), "--time-limit", "20", "-o", str(out)]) == 0
    )
    return read_placement(out)


def test_import_minimise_export_and_the_runtime_agrees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = 7  # TFLM's plan is 1,280 B where the live bound is 1,024 B
    model = tmp_path / "m7.tflite"
    model.write_bytes(streaming_model(seed, operators=14))
    assert main(["import", "tflm", str(model), "-o", str(tmp_path)]) == 0
    capture = read_capture(tmp_path / "m7.json")
    assert capture.origin is not None and capture.origin.heap == 1280
    assert bound(capture).lower_bound == 1024
    placement = _minimal(tmp_path / "m7.json", tmp_path / "min.json")
    capsys.readouterr()
    out = tmp_path / "m7.planned.tflite"
    assert (
        main(["export", "tflm", str(model), str(tmp_path / "min.json"), "-o", str(out), "--json"])
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert (report["head_before"], report["head_after"]) == (1280, 1024)
    runtime = report["runtime"]
    assert (runtime["head_before"], runtime["head_after"]) == (1280, 1024)
    assert runtime["arena_before"] - runtime["arena_after"] == 256
    assert runtime["outputs_identical"] and runtime["outputs_vary"]
    # the written plan is the placement, word for word, every other tensor -1
    graph = read_graph(out.read_bytes(), "out")
    buffers = planned(graph, "out")
    assert check_plan(out.read_bytes(), "out") == tuple(
        plan_words(graph, buffers, placement.offsets)[3:]
    )


def test_a_broken_plan_changes_the_outputs_so_the_comparison_can_fail() -> None:
    data = streaming_model(7, operators=14)
    graph = read_graph(data, "m")
    buffers = planned(graph, "m")
    own = greedy_offsets(buffers)
    offsets = {f"0:{b.tensor.index}": o for b, o in zip(buffers, own, strict=True)}
    # two tensors live together put on the same bytes
    a, b = next(
        (x, y)
        for x in buffers
        for y in buffers
        if x is not y and x.first <= y.last and y.first <= x.last and x.first < y.first
    )
    offsets[f"0:{b.tensor.index}"] = offsets[f"0:{a.tensor.index}"]
    broken = with_plan(data, plan_words(graph, buffers, offsets), "m")
    reference = run_model(data, "m", invocations=20)
    assert reference.varies
    assert not reference.same_outputs(run_model(broken, "m", invocations=20))
    # and TFLM's own plan written back changes nothing
    same = with_plan(
        data,
        plan_words(
            graph, buffers, {f"0:{x.tensor.index}": o for x, o in zip(buffers, own, strict=True)}
        ),
        "m",
    )
    assert reference.same_outputs(run_model(same, "m", invocations=20))


def test_export_refuses_an_overlap_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "m.tflite"
    model.write_bytes(streaming_model(3, operators=10))
    item = read_model(model)
    assert item is not None
    zeros = Placement(item.capture.name, {r.id: 0 for r in item.capture.requests})
    write_placement(zeros, tmp_path / "zeros.json")
    out = tmp_path / "out.tflite"
    assert main(["export", "tflm", str(model), str(tmp_path / "zeros.json"), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the referee rejects it" in err[0] and "overlap" in err[0]
    assert not out.exists()


def test_export_refuses_a_placement_of_another_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    small, large = tmp_path / "small.tflite", tmp_path / "large.tflite"
    small.write_bytes(streaming_model(1, operators=4))
    large.write_bytes(streaming_model(2, operators=14))
    item = read_model(large)
    assert item is not None
    write_placement(item.placement, tmp_path / "large.placement.json")
    assert (
        main(
            [
                "export",
                "tflm",
                str(small),
                str(tmp_path / "large.placement.json"),
                "-o",
                str(tmp_path / "o.tflite"),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "small.tflite does not plan" in err and not (tmp_path / "o.tflite").exists()


@pytest.mark.parametrize(
    ("content", "rule"),
    [
        (b"hello, not a model at all", "no TFL3 identifier"),
        (None, "truncated"),
    ],
)
def test_bad_models_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None, rule: str
) -> None:
    path = tmp_path / "bad.tflite"
    path.write_bytes(content if content is not None else streaming_model(0)[:200])
    assert main(["import", "tflm", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and rule in err[0]


def _fetched(name: str) -> Path:
    path = MODELS / f"{name}.tflite"
    if not path.is_file():
        pytest.skip(f"{path} is missing: python benchmarks/tflm_fetch.py fetches the real models")
    return path


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_models_import_with_the_head_the_interpreter_reports(name: str) -> None:
    item = read_model(_fetched(name))
    assert item is not None and item.capture.origin is not None
    assert (len(item.capture.requests), item.capture.origin.heap) == REAL[name]
    assert item.notes == ()  # the interpreter confirmed the head


def test_a_real_wake_word_model_runs_with_the_minimal_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = _fetched("alexa")
    assert main(["import", "tflm", str(model), "-o", str(tmp_path)]) == 0
    _minimal(tmp_path / "alexa.json", tmp_path / "min.json")
    capsys.readouterr()
    out = tmp_path / "alexa.planned.tflite"
    assert (
        main(["export", "tflm", str(model), str(tmp_path / "min.json"), "-o", str(out), "--json"])
        == 0
    )
    runtime = json.loads(capsys.readouterr().out)["runtime"]
    assert (runtime["head_before"], runtime["head_after"]) == (3648, 3200)
    assert runtime["outputs_identical"] and runtime["outputs_vary"]


def test_the_example_model_is_rebuilt_byte_for_byte() -> None:
    example = ROOT / "examples" / "tflm" / "streaming.tflite"
    assert example.read_bytes() == streaming_model(7, operators=14)


def test_import_and_export_json_satisfy_the_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import jsonschema

    from tilefit.output.schema import output_schema

    model = ROOT / "examples" / "tflm" / "streaming.tflite"
    assert main(["import", "tflm", str(model), "-o", str(tmp_path), "--json"]) == 0
    imported = json.loads(capsys.readouterr().out)
    jsonschema.validate(imported, output_schema("import"))
    assert imported["imports"][0]["heap_standing"]["plan"] == "head"
    assert (
        main(
            [
                "export",
                "tflm",
                str(model),
                str(tmp_path / "streaming.placement.json"),
                "-o",
                str(tmp_path / "same.tflite"),
                "--json",
                "--no-run",
            ]
        )
        == 0
    )
    exported = json.loads(capsys.readouterr().out)
    jsonschema.validate(exported, output_schema("export"))
    assert exported["saved"] == 0 and exported["runtime"] is None


def _editor_model(shape: tuple[int, ...], custom: str | None = None) -> bytes:
    from importlib import import_module

    editor = import_module("tflite_micro.tensorflow.lite.micro.compression.model_editor")
    fb = import_module("tflite_micro.tensorflow.lite.micro.python.schema_py_generated")
    f32 = fb.TensorType.FLOAT32
    x = editor.Tensor(shape=shape, dtype=f32, name="x")
    y = editor.Tensor(shape=shape, dtype=f32, name="y")
    if custom is None:
        op = editor.Operator(opcode=fb.BuiltinOperator.TANH, inputs=[x], outputs=[y])
    else:
        op = editor.Operator(
            opcode=fb.BuiltinOperator.CUSTOM, custom_code=custom, inputs=[x], outputs=[y]
        )
    graph = editor.Subgraph(operators=[op], inputs=[x], outputs=[y])
    return bytes(editor.Model(subgraphs=[graph]).build())


@pytest.mark.parametrize(
    ("shape", "custom", "rule"),
    [
        ((-1, 4), None, "dynamic shape [-1, 4]"),
        ((1, 4), "MyOp", "custom operator MyOp"),
    ],
)
def test_models_tflm_cannot_plan_are_refused_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    shape: tuple[int, ...],
    custom: str | None,
    rule: str,
) -> None:
    path = tmp_path / "odd.tflite"
    path.write_bytes(_editor_model(shape, custom))
    assert main(["import", "tflm", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and rule in err[0], err
    # and a plain one of the same shape imports
    path.write_bytes(_editor_model((1, 4)))
    assert main(["import", "tflm", str(path)]) == 0


def test_replan_in_one_step_writes_the_proven_least(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import jsonschema

    from tilefit.output.schema import output_schema

    model = ROOT / "examples" / "tflm" / "streaming.tflite"
    out = tmp_path / "planned.tflite"
    assert main(["replan", "tflm", str(model), "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    jsonschema.validate(report, output_schema("replan"))
    assert (report["head_before"], report["head_after"], report["proven_minimal"]) == (
        1280,
        1024,
        True,
    )
    assert report["runtime"]["outputs_identical"] and out.is_file()
    # replanned again: already the least, nothing written (exit 1)
    again = tmp_path / "again.tflite"
    assert main(["replan", "tflm", str(out), "-o", str(again)]) == 1
    assert "already the least" in capsys.readouterr().out and not again.exists()


def test_batch_reads_tflm_models_in_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    for seed in (1, 7):
        (folder / f"m{seed}.tflite").write_bytes(streaming_model(seed, operators=14))
    (folder / "notes.txt").write_text("not a model")
    db = tmp_path / "r.sqlite"
    assert main(["batch", str(folder), "--db", str(db), "--time-limit", "5", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["captures"] == 2 and summary["errors"] == 0


def test_a_model_the_interpreter_cannot_run_imports_and_says_why(tmp_path: Path) -> None:
    # TFLM has no TANH for int32: the model plans, but its kernel refuses to prepare
    from importlib import import_module

    editor = import_module("tflite_micro.tensorflow.lite.micro.compression.model_editor")
    fb = import_module("tflite_micro.tensorflow.lite.micro.python.schema_py_generated")
    x = editor.Tensor(shape=(1, 4), dtype=fb.TensorType.INT32, name="x")
    y = editor.Tensor(shape=(1, 4), dtype=fb.TensorType.INT32, name="y")
    op = editor.Operator(opcode=fb.BuiltinOperator.TANH, inputs=[x], outputs=[y])
    graph = editor.Subgraph(operators=[op], inputs=[x], outputs=[y])
    path = tmp_path / "refused.tflite"
    path.write_bytes(bytes(editor.Model(subgraphs=[graph]).build()))
    item = read_model(path)
    assert item is not None and len(item.capture.requests) == 2
    [note] = item.notes  # the head is confirmed: the arena is planned before it runs
    assert "cannot run it" in note and "TANH" in note, note
    write_placement(item.placement, tmp_path / "p.json")
    out = tmp_path / "o.tflite"
    assert main(["export", "tflm", str(path), str(tmp_path / "p.json"), "-o", str(out)]) == 2
    assert not out.exists()
    assert (
        main(["export", "tflm", str(path), str(tmp_path / "p.json"), "-o", str(out), "--no-run"])
        == 0
    )


@pytest.mark.parametrize("kind", ["while", "if"])
def test_control_flow_plans_as_the_interpreter_does_and_runs(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tilefit.generate.tflm import control_flow_model

    data = control_flow_model(kind)
    graph = read_graph(data, kind)
    buffers = planned(graph, kind)
    assert {b.subgraph for b in buffers} == {0, 1, 2}  # the planner walks into both subgraphs
    assert head(buffers, greedy_offsets(buffers)) == run_model(data, kind).head
    model = tmp_path / f"{kind}.tflite"
    model.write_bytes(data)
    assert main(["replan", "tflm", str(model), "-o", str(tmp_path / "o.tflite"), "--json"]) in (
        0,
        1,
    )
    report = json.loads(capsys.readouterr().out)
    assert report["runtime"]["outputs_identical"] and report["runtime"]["outputs_vary"]
