"""Issue 50 item 2: a command its time limit stops short of what it asked says so, names the
option that gives it more, and says it in --json (``stopped``).

The limits here are a nanosecond, or 0 where a command takes it: the deadline has passed
before the first unit is placed, whatever the machine's load. Each is beside the same
command given the time to finish, which says nothing of a limit.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from checkout import ROOT

from tilefit.cli import main
from tilefit.formats.load import read_capture
from tilefit.model.deadline import Deadline
from tilefit.model.placement import Placement
from tilefit.output.headline import diagnosis_headline
from tilefit.output.schema import output_schema
from tilefit.report.content import gather
from tilefit.report.html import render
from tilefit.search.outcome import Least
from tilefit.search.problem import Problem
from tilefit.toolchains.executorch.hook import stopped_lines
from tilefit.toolchains.executorch.plan import plan_program
from tilefit.toolchains.executorch.specs import read_program
from tilefit.verdicts.answer import Answer
from tilefit.verdicts.diagnose import diagnose
from tilefit.verdicts.lower import look_lower
from tilefit.verdicts.stopped import NODE_LIMIT, Stopped, diagnosis_stopped, stopped
from tilefit.verdicts.verdict import Verdict

EXAMPLES = ROOT / "examples"
NOW = "0.000000001"  # a nanosecond: the deadline has passed by the first question asked
MORE = "a larger --time-limit gives it more"


def _json(capsys: pytest.CaptureFixture[str], command: str) -> dict[str, object]:
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    jsonschema.validate(out, output_schema(command))
    return out


def test_a_replan_cut_by_its_limit_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # replan iree tx.mlir: 153 s, "nothing lower found", exit 1, no word of the limit.
    pytest.importorskip("tflite_micro", reason="TFLM's interpreter (pip install 'tilefit[tflm]')")
    model, out = EXAMPLES / "tflm" / "streaming.tflite", tmp_path / "s.tflite"
    assert main(["replan", "tflm", str(model), "-o", str(out), "--time-limit", NOW]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "TFLM's head: 1,280 B; nothing lower found"
    assert lines[1] == f"  stopped at its time limit before a plan below TFLM's head: {MORE}"
    assert not out.exists()
    assert main(["replan", "tflm", str(model), "-o", str(out), "--time-limit", NOW, "--json"]) == 1
    stopped = _json(capsys, "replan")["stopped"]
    assert stopped == {
        "limit": "time limit",
        "option": "--time-limit",
        "before": "a plan below TFLM's head",
        "text": f"stopped at its time limit before a plan below TFLM's head: {MORE}",
    }
    # Given its time, the same replan proves its plan the least: no word of a limit.
    assert main(["replan", "tflm", str(model), "-o", str(out), "--json"]) == 0
    assert _json(capsys, "replan")["stopped"] is None


def test_solve_minimize_stopped_short_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    capture = str(EXAMPLES / "0-0.json")
    assert main(["solve", capture, "--minimize", "--time-limit", "0"]) == 1
    last = capsys.readouterr().out.splitlines()[-1]
    assert (
        last == f"stopped at its time limit before a placement or a proof that none exists: {MORE}"
    )
    assert main(["solve", capture, "--minimize", "--time-limit", "0", "--json"]) == 1
    assert _json(capsys, "solve")["stopped"] == {
        "limit": "time limit",
        "option": "--time-limit",
        "before": "a placement or a proof that none exists",
        "text": last,
    }
    assert main(["solve", capture, "--minimize", "--json"]) == 0
    out = _json(capsys, "solve")
    assert out["optimal"] is True and out["stopped"] is None


def test_a_least_found_but_not_proven_is_stopped_short() -> None:
    # Which limit stops a search with a placement but no proof is the machine's to say:
    # the answer itself is made here, as the ladder returns it.
    placement = Placement("t", {"a": 0})
    found = Answer(
        verdict=Verdict.FRAGMENTATION,
        strategy="size/best-fit",
        placement=placement,
        least=Least(100, 120),
    )
    said = stopped(found, minimize=True, option=NODE_LIMIT)
    assert said is not None and said.text == (
        "stopped at its node limit before proving its plan the least: "
        "a larger --node-limit gives it more"
    )
    assert stopped(found) is None  # not minimising: a placement is all it asked
    proven = Answer(
        verdict=Verdict.FRAGMENTATION,
        strategy="size/best-fit",
        placement=placement,
        least=Least(120, 120),
    )
    assert stopped(proven, minimize=True) is None


def test_diagnose_stopped_short_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    capture = str(EXAMPLES / "0-0.json")
    assert main(["diagnose", capture, "--time-limit", "0"]) == 1
    lines = capsys.readouterr().out.splitlines()
    said = f"  stopped at its time limit before a verdict: {MORE}"
    assert said in lines and lines.index(said) < lines.index("")  # in the opening lines
    assert main(["diagnose", capture, "--time-limit", "0", "--json"]) == 1
    assert _json(capsys, "diagnose")["stopped"]["before"] == "a verdict"  # type: ignore[index]
    # --no-search asks for no verdict beyond the strategies: nothing was cut short.
    assert main(["diagnose", capture, "--no-search", "--json"]) in (0, 1)
    assert _json(capsys, "diagnose")["stopped"] is None


def test_executorch_s_planner_says_an_arena_its_limit_stopped() -> None:
    program = read_program(EXAMPLES / "executorch" / "encoder_32.default.executorch.json")
    (line,) = stopped_lines(plan_program(program, 1e-9), 1e-9)
    assert line.startswith("tilefit: arena 1: 1,343,488 B, not proven minimal: its search ")
    assert line.endswith("time limit (1e-09 s); planner(time_limit=SECONDS) gives it more")
    assert stopped_lines(plan_program(program, 60.0), 60.0) == []  # proven in seconds


def test_an_import_not_searched_below_says_so_and_how_to_look(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # diagnose said "no lower placement found" where it had not looked.
    specs = EXAMPLES / "executorch" / "encoder_32.default.executorch.json"
    assert main(["import", "executorch", str(specs), "-o", str(tmp_path)]) == 0
    capsys.readouterr()
    capture = read_capture(tmp_path / "encoder_32.default.arena1.json")
    told = diagnose(capture, lower=False)  # the verdict alone: production's plan, greedy's top
    assert told.heap is not None and not told.heap.looked
    assert told.heap.text.endswith("; not searched below it (tilefit solve --minimize searches)")
    head = diagnosis_headline(told)
    assert head is not None
    assert head.tilefit_text().endswith("not searched lower: tilefit solve --minimize searches")
    assert look_lower(Problem(capture), told, Deadline.start(0.0)) is None  # no time
    assert diagnosis_stopped(told) == Stopped("a search below ExecuTorch's arena")
    # A search for the least that the time cut before its first plan: the same, and the
    # verdict's plan still stands in the headline.
    cut = replace(told, lower=Answer(verdict=Verdict.UNDETERMINED))
    assert cut.heap == told.heap and diagnosis_stopped(cut) == diagnosis_stopped(told)
    cut_head = diagnosis_headline(cut)
    assert cut_head is not None and cut_head.top == told.heap.heap
    looked = diagnose(capture, lower=True, time_limit=60)
    assert looked.heap is not None and looked.heap.proven
    assert looked.heap.best_top == 1_245_184 < told.heap.heap
    assert diagnosis_stopped(looked) is None


def test_the_report_says_where_its_limit_stopped_it() -> None:
    capture = read_capture(EXAMPLES / "0-0.json")
    page = render(gather(capture, time_limit=0))
    assert f'<p class="stopped">Stopped at its time limit before a verdict: {MORE}.</p>' in page
    assert 'class="stopped"' not in render(gather(capture, time_limit=30))  # fragmentation


def test_whatif_plot_and_report_say_where_their_limit_stopped_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = str(EXAMPLES / "0-0.json")
    said = f"stopped at its time limit before a verdict: {MORE}"
    argv = ["whatif", capture, "--capacity-add", "64", "--time-limit", "0"]
    assert main(argv) == 1
    out = capsys.readouterr().out.splitlines()
    assert f"  before: {said}" in out and f"  after: {said}" in out
    assert main([*argv, "--json"]) == 1
    assert _json(capsys, "whatif")["stopped"]["after"]["before"] == "a verdict"  # type: ignore[index]
    assert main(["plot", capture, "-o", str(tmp_path / "m.png"), "--time-limit", "0"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"  the verdict {said}"
    assert main(["report", capture, "-o", str(tmp_path / "r.html"), "--time-limit", "0"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"  {said}"


def test_batch_says_how_many_tiles_its_limit_stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, capture = str(tmp_path / "r.sqlite"), str(EXAMPLES / "0-0.json")
    assert main(["batch", capture, "--db", db, "--time-limit", NOW]) == 0  # no row failed
    out = capsys.readouterr().out.splitlines()
    assert (
        "1 tile stopped at the time limit (1e-09 s each) before a verdict: "
        "a larger --time-limit gives it more"
    ) in out
    assert main(["batch", capture, "--db", db, "--overwrite"]) == 0  # given its time: decided
    assert not [line for line in capsys.readouterr().out.splitlines() if "stopped" in line]
