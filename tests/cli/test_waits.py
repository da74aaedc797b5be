"""No silent waits: every wait says what it waits for, and on a terminal counts its seconds.

The one-time compilation of the search kernels is faked here (a cold cache whose
compile takes no time): what is tested is what the user is told, wherever the
compilation happens (a search's ladder, ExecuTorch's planner, ``tilefit batch``).
A real cold compile is tested once, in tests/search/test_search_compiling.py.
"""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from checkout import ROOT
from test_cli_progress import Clock, run_on_a_terminal

from tilefit.batch.bundle import write_bundle
from tilefit.cli import main
from tilefit.cli.progress import CLEAR, TerminalWatch
from tilefit.formats.save import write_capture
from tilefit.generate.planted import PlantedRecipe, planted_tile
from tilefit.generate.synth import Recipe, synth_model
from tilefit.model.deadline import Deadline
from tilefit.search import compiling
from tilefit.search.kernel import jit
from tilefit.toolchains.executorch.plan import plan_program
from tilefit.toolchains.executorch.specs import read_program
from tilefit.toolchains.tflm.runtime import available as tflm_available
from tilefit.verdicts.ladder import _compiled

ANNOUNCED = "tilefit: compiling the search kernels once ("


@pytest.fixture
def cold(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """A cold cache whose compilation is instant; yields the compilations run."""
    runs: list[int] = []
    monkeypatch.setattr(jit, "COMPILED", True)
    monkeypatch.setattr(compiling, "_done", False)
    monkeypatch.setattr(compiling, "kernels_cached", lambda: False)
    monkeypatch.setattr(compiling, "_run_once", lambda cold: runs.append(1))
    yield runs


def test_the_estimate_stretches_with_the_machines_load() -> None:
    """11 s on two free cores; stretched by the load over the cores: at load 5-9 on two
    cores it says nearer a minute, not "about 10 s"."""
    assert compiling.estimate(load=0.0, cores=2) == "about 10 s"
    assert compiling.estimate(load=0.0, cores=8) == "about 10 s"
    assert compiling.estimate(load=0.0, cores=1) == "about 20 s"
    assert compiling.estimate(load=5.0, cores=2) == "about 40 s"
    assert compiling.estimate(load=9.0, cores=2) == "about 60 s"
    assert compiling.estimate(load=20.0, cores=2) == "about 2 minutes"


def test_a_compilation_draws_a_line_that_counts_its_seconds(
    cold: list[int], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = Clock()
    seen: list[str] = []
    read, write = os.pipe()
    try:
        with TerminalWatch(write, clock) as watch:

            def compile_for_twelve_seconds(cold: bool) -> None:
                clock.now += 12
                seen.append(watch.line())
                cold_runs.append(1)

            cold_runs = cold
            monkeypatch.setattr(compiling, "_run_once", compile_for_twelve_seconds)
            deadline = _compiled(Deadline.start(5.0), watch)
            after = watch.line()
    finally:
        os.close(write)
        drawn = os.read(read, 1 << 16).decode()
        os.close(read)
    assert cold == [1]
    assert seen == ["compiling the search kernels once, 12 s"]
    assert after == ""  # paused: the compilation's own line follows on stderr
    assert drawn.endswith(CLEAR)
    said = capsys.readouterr().err
    assert said.startswith(ANNOUNCED) and " on this machine now, then cached" in said
    assert "search kernels compiled in" in said
    assert deadline.given_back > 0  # the compilation's own seconds (real ones) given back


def test_the_executorch_planner_says_when_it_compiles(
    cold: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    """Inside ``to_executorch`` the planner's first search compiles the kernels: it says so
    (it once waited 181 s without a word), and only when a search runs."""
    examples = ROOT / "examples" / "executorch"
    plan_program(read_program(examples / "kws_dscnn.default.executorch.json"), 5.0, 1)
    assert cold == [] and capsys.readouterr().err == ""  # greedy's plan is the least
    plan_program(read_program(examples / "encoder_32.default.executorch.json"), 5.0, 1)
    assert cold == [1]
    said = capsys.readouterr().err.splitlines()
    assert said[0].startswith(ANNOUNCED) and said[1].startswith("tilefit: search kernels compiled")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_batch_says_the_compilation_before_it_draws_its_bar(
    cold: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compilation's lines used to run into the progress bar drawn before them."""
    bundle = tmp_path / "m.jsonl"
    write_bundle(synth_model(tiles=2, seed=4, base=Recipe(requests=40, layers=4)), bundle)
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    code = main(["batch", str(bundle), "--db", str(tmp_path / "r.sqlite"), "--jobs", "1"])
    assert code == 0 and cold == [1]
    said = terminal.getvalue()
    assert said.startswith(ANNOUNCED), said
    _, second, bar = said.split("\n", 2)
    assert second.startswith("tilefit: search kernels compiled in ")
    assert bar.startswith("\r0/2 ")


@pytest.mark.skipif(os.name != "posix", reason="a pseudo-terminal and SIGALRM")
@pytest.mark.skipif(not tflm_available(), reason="tflite-micro is not installed (extra tflm)")
def test_import_and_replan_draw_each_step_on_a_terminal(tmp_path: Path) -> None:
    """``replan tflm`` ran TFLM's interpreter twice for seconds each without a word."""
    model = tmp_path / "streaming.tflite"
    shutil.copy(ROOT / "examples" / "tflm" / "streaming.tflite", model)
    code, out, err = run_on_a_terminal(["import", "tflm", str(model), "-o", "caps"], tmp_path)
    assert code == 0 and out.startswith("streaming: "), err
    drawn = [line for line in err.split(CLEAR) if line]
    assert any(line.startswith("TFLM: reading streaming.tflite, ") for line in drawn), err
    assert err.endswith(CLEAR)
    code, out, err = run_on_a_terminal(["replan", "tflm", str(model), "-o", "p.tflite"], tmp_path)
    assert code in (0, 1) and out.startswith("TFLM's head"), err
    drawn = [line for line in err.split(CLEAR) if line]
    for step in (
        "TFLM: reading streaming.tflite, ",
        "the least head of streaming: greedy passes, ",
        "TFLM: writing the plan into streaming.tflite, ",
        "TFLM's interpreter: the model with its own plan, 100 invocations, ",
        "TFLM's interpreter: the model with this plan, 100 invocations, ",
    ):
        assert any(line.startswith(step) for line in drawn), (step, err)
    assert err.endswith(CLEAR) and "\n" not in err  # one line, redrawn, gone before the answer


@pytest.mark.skipif(os.name != "posix", reason="a pseudo-terminal and SIGALRM")
def test_diagnose_draws_every_step_before_the_search(tmp_path: Path) -> None:
    """Reading a capture of tens of thousands of buffers, its bounds and its replay take
    seconds each: the line said nothing until the search."""
    capture, _ = planted_tile(PlantedRecipe(requests=60, density=0.95, seed=3))
    write_capture(capture, tmp_path / "tile.json")
    argv = ["diagnose", "tile.json", "--no-search", "--time-limit", "5"]
    code, out, err = run_on_a_terminal(argv, tmp_path)
    assert code == 1 and out.startswith("planted-"), err
    drawn = [line for line in err.split(CLEAR) if line]
    assert drawn[0].startswith("reading tile.json, "), err
    assert any(line.endswith(" s left  the lower bounds") for line in drawn), err
    assert any(line.endswith(" s left  the production replay") for line in drawn), err
    assert any(" s left  greedy pass 1 of " in line for line in drawn), err
    assert err.endswith(CLEAR)


def test_a_warm_cache_slow_to_load_is_not_said_to_compile(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under load, loading the cached kernels took 5 s and was said as "search kernels
    compiled in 5.0 s", and given back: only numba's counted cache misses are."""
    clock = Clock()

    def load_for_five_seconds(cold: bool) -> None:
        clock.now += 5.0

    monkeypatch.setattr(jit, "COMPILED", True)
    monkeypatch.setattr(compiling, "_done", False)
    monkeypatch.setattr(compiling, "kernels_cached", lambda: True)
    monkeypatch.setattr(compiling, "_run_once", load_for_five_seconds)
    monkeypatch.setattr(compiling, "compilations", lambda: 0, raising=False)
    monkeypatch.setattr(compiling.time, "monotonic", clock)
    assert compiling.ensure_compiled() == 0.0
    assert capsys.readouterr().err == ""
