"""tilefit whatif: the verdict before and after edits, the windows matched, the command line."""

from __future__ import annotations

import contextlib
import io
import json
import re
from itertools import pairwise
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from checkout import ROOT
from fuzzing import FUZZ, mutated
from hypothesis import given, settings
from hypothesis import strategies as st

from tilefit.bounds.overload import OverStep, Window
from tilefit.cli import main
from tilefit.formats.edits import read_edits
from tilefit.formats.load import read_capture
from tilefit.model.edits import Lifetime, Resize, apply_edits
from tilefit.output.schema import output_schema
from tilefit.verdicts.whatif import WindowMatch, match_windows, what_if

ONE_ZERO = str(ROOT / "examples" / "1-0.json")
EARLY_CAST = ROOT / "examples" / "edits" / "1-0-early-cast.json"
STAGING = "m*.l3.cast.staging"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["whatif", *argv])
    return code, out.getvalue(), err.getvalue()


def run_json(*argv: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = run(*argv, "--json")
    obj: dict[str, Any] = json.loads(out)
    jsonschema.validate(obj, output_schema("whatif"))
    return code, obj


def write(path: Path, obj: object) -> str:
    path.write_text(json.dumps(obj))
    return str(path)


def edits_file(*edits: dict[str, Any]) -> dict[str, Any]:
    return {"format": "tilefit-edits", "version": 1, "edits": list(edits)}


# --------------------------------------------------------------------------- windows matched


def window(start: int, end: int) -> Window:
    step = OverStep(start, end, 10, 1, 10, 9, ("main",))
    return Window(start, end, (step,), step, 1, ())


def matched(before: list[tuple[int, int]], after: list[tuple[int, int]]) -> list[WindowMatch]:
    return list(
        match_windows(tuple(window(s, e) for s, e in before), tuple(window(s, e) for s, e in after))
    )


def test_windows_that_stay_vanish_appear_split_and_merge() -> None:
    assert matched([(12, 13)], [(12, 13)]) == [WindowMatch((0,), (0,))]
    assert matched([(1, 2), (5, 6)], [(5, 7)]) == [WindowMatch((0,), ()), WindowMatch((1,), (0,))]
    assert matched([], [(3, 4)]) == [WindowMatch((), (0,))]
    assert matched([(0, 10)], [(0, 2), (5, 10)]) == [WindowMatch((0,), (0, 1))]
    assert matched([(0, 2), (3, 5)], [(1, 4)]) == [WindowMatch((0, 1), (0,))]
    # Touching is not sharing a step.
    assert matched([(0, 2)], [(2, 3)]) == [WindowMatch((0,), ()), WindowMatch((), (0,))]
    # A chain: before [0,4) meets after [3,8), which meets before [6,9).
    assert matched([(0, 4), (6, 9)], [(3, 8)]) == [WindowMatch((0, 1), (0,))]


@st.composite
def disjoint(draw: st.DrawFn) -> list[tuple[int, int]]:
    cuts = sorted(draw(st.sets(st.integers(0, 40), max_size=10)))
    pairs = list(zip(cuts[::2], cuts[1::2], strict=False))
    return [p for p in pairs if draw(st.booleans())]


@settings(max_examples=300, deadline=None)
@given(disjoint(), disjoint())
def test_every_window_is_matched_once_by_shared_steps(
    before: list[tuple[int, int]], after: list[tuple[int, int]]
) -> None:
    groups = matched(before, after)
    assert sorted(k for g in groups for k in g.before) == list(range(len(before)))
    assert sorted(k for g in groups for k in g.after) == list(range(len(after)))

    def steps(g: WindowMatch) -> set[int]:
        spans = [before[k] for k in g.before] + [after[k] for k in g.after]
        return {t for s, e in spans for t in range(s, e)}

    for g, h in pairwise(groups):
        assert max(steps(g)) < min(steps(h))  # in time order, sharing no step
    for g in groups:  # within a group, each window shares a step with the other side
        for k in g.before:
            s, e = before[k]
            others = [after[j] for j in g.after]
            assert not others or any(s < oe and os < e for os, oe in others)


# --------------------------------------------------------------------------- 1-0 (issue 12)


def test_trimming_the_staging_at_every_window_removes_the_deficit() -> None:
    capture = read_capture(ONE_ZERO)
    result = what_if(capture, [Resize(STAGING, -16_328, True, "--resize")])
    before, after = result.before, result.after
    assert [(w.start, w.excess) for w in before.bound.windows] == [
        (12, 6_608),
        (26, 8_904),
        (40, 13_832),
        (54, 16_328),
    ]
    assert (before.verdict, before.bound.deficit, before.bound.must_leave) == (
        "capacity",
        16_328,
        16_360,
    )
    assert after.bound.windows == ()
    assert (after.bound.deficit, after.bound.support_deficit, after.bound.must_leave) == (0, 0, 0)
    assert after.bound.lower_bound == after.bound.available == 498_872
    assert result.edits[0].requests == tuple(f"m{m}.l3.cast.staging" for m in range(4))
    assert result.windows == tuple(WindowMatch((k,), ()) for k in range(4))
    # No bound is left, yet no placement exists: the only scratch live at the
    # windows is the staging itself, still larger than the 12,288 B host aperture
    # that the bounds count as storage (docs/walkthrough.md, "What if").
    assert after.verdict == "infeasible"


def test_the_cli_shows_the_windows_gone() -> None:
    code, out, err = run(ONE_ZERO, "--resize", f"{STAGING}=-16328")
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert lines[0] == "1-0 (tile 0), what if: CAPACITY -> INFEASIBLE"
    assert "  --resize 'm*.l3.cast.staging=-16328'  4 requests" in lines
    assert "  deficit                   16328 B              0 B" in lines
    assert "  overloaded windows        4                    0" in lines
    assert lines[-5:] == [
        "  before  excess   after  excess",
        "  12      6608 B   -      -",
        "  26      8904 B   -      -",
        "  40      13832 B  -      -",
        "  54      16328 B  -      -",
    ]


@pytest.mark.parametrize(("by", "verdict"), [(-24_383, "infeasible"), (-24_384, "fragmentation")])
def test_the_staging_fits_once_it_fits_the_host_aperture(by: int, verdict: str) -> None:
    # At -24,384 B the largest staging buffer (m2's, 36,672 B) is 12,288 B: the aperture's size.
    capture = read_capture(ONE_ZERO)
    result = what_if(capture, [Resize(STAGING, by, True, "x")], time_limit=30)
    assert result.after.verdict == verdict
    assert result.fits == (verdict == "fragmentation")


def test_the_early_cast_file_holds_the_baselines_lifetimes() -> None:
    capture = read_capture(ONE_ZERO)
    expected = []
    for m in range(4):
        s = capture.request_by_id[f"m{m}.l3.mlp_down.in16"].start
        end = capture.request_by_id[f"m{m}.l3.mlp_down.in8"].end
        expected += [
            (f"m{m}.l3.mlp_down.in16", s - 4, s - 2),
            (f"m{m}.l3.cast.staging", s - 4, s - 2),
            (f"m{m}.l3.mlp_down.in8", s - 2, end),
        ]
    edits = read_edits(EARLY_CAST)
    assert all(isinstance(e, Lifetime) for e in edits)
    assert [(e.pattern, e.start, e.end) for e in edits if isinstance(e, Lifetime)] == expected


def test_reverting_the_cast_lifetimes_turns_1_0_into_fits(tmp_path: Path) -> None:
    out_path = tmp_path / "edited.json"
    code, obj = run_json(ONE_ZERO, "--edits", str(EARLY_CAST), "-o", str(out_path))
    assert code == 0
    assert obj["before"]["verdict"] == "capacity"
    assert (obj["after"]["verdict"], obj["after"]["strategy"]) == ("fits", "alignment/first-fit")
    assert obj["after"]["overloaded_windows"] == []
    assert len(obj["before"]["overloaded_windows"]) == 4
    assert [e["requests"] for e in obj["edits"]] == [[e["edit"]["lifetime"]] for e in obj["edits"]]
    assert obj["edits"][0]["place"] == f"{EARLY_CAST}: edits[0]"
    assert obj["windows"] == [{"before": [k], "after": []} for k in range(4)]
    # -o keeps the edited capture: what the edits make, loadable.
    capture = read_capture(ONE_ZERO)
    assert read_capture(out_path) == apply_edits(capture, read_edits(EARLY_CAST))
    assert not list(tmp_path.glob("*.partial"))
    code, out, _ = run(ONE_ZERO, "--edits", str(EARLY_CAST))
    assert code == 0
    assert out.splitlines()[0] == "1-0 (tile 0), what if: CAPACITY -> FITS"
    assert "  verdict                   capacity             fits (alignment/first-fit)" in out


# --------------------------------------------------------------------------- small captures

SMALL: dict[str, Any] = {
    "format": "tilefit-capture",
    "version": 1,
    "name": "wi",
    "horizon": 10,
    "memory": {"size": 100, "ranges": [{"start": 0, "end": 100, "name": "main"}]},
    "requests": [
        {"id": "a", "size": 60, "start": 0, "end": 10},
        {"id": "b", "size": 45, "start": 2, "end": 8},
        {"id": "c", "size": 45, "start": 2, "end": 4},
        {"id": "d", "size": 45, "start": 6, "end": 8},
    ],
}
FAST = ("--time-limit", "2", "--workers", "1")


def test_a_window_that_splits_shows_on_two_rows(tmp_path: Path) -> None:
    capture = write(tmp_path / "wi.json", SMALL)
    code, out, _ = run(capture, "--resize", "b=35", *FAST)
    assert code == 1
    assert out.splitlines()[-3:] == [
        "  before  excess  after   excess",
        "  [2, 8)  50 B    [2, 4)  40 B",
        "                  [6, 8)  40 B",
    ]
    _, obj = run_json(capture, "--resize", "b=35", *FAST)
    assert obj["windows"] == [{"before": [0], "after": [0, 1]}]


def test_windows_that_vanish_move_and_appear(tmp_path: Path) -> None:
    doc = json.loads(json.dumps(SMALL))
    doc["requests"] = doc["requests"][:2]  # a, b: one window [2, 8), 5 B over
    capture = write(tmp_path / "wi.json", doc)
    code, out, _ = run(capture, "--lifetime", "b=8:10", "--resize", "a=+10", *FAST)
    assert code == 1
    assert out.splitlines()[-3:] == [
        "  before  excess  after    excess",
        "  [2, 8)  5 B     -        -",
        "  -       -       [8, 10)  15 B",
    ]
    code, out, _ = run(capture, "--drop", "b", *FAST)
    assert code == 0
    assert out.splitlines()[0] == "wi, what if: CAPACITY -> FITS"
    assert out.splitlines()[-2:] == [
        "  before  excess  after  excess",
        "  [2, 8)  5 B     -      -",
    ]
    code, out, _ = run(capture, "--capacity-add", "5", *FAST)
    assert "  --capacity-add 5  memory" in out.splitlines()
    assert out.splitlines()[-1] == "  [2, 8)  5 B     -      -"
    alone = write(tmp_path / "alone.json", {**doc, "requests": doc["requests"][:1]})
    code, out, _ = run(alone, "--resize", "a=+1", *FAST)
    assert code == 0
    assert out.splitlines()[-1] == "overloaded windows: none before, none after"


def test_edits_apply_files_first_then_options_in_command_line_order(tmp_path: Path) -> None:
    capture = write(tmp_path / "wi.json", SMALL)
    first = write(tmp_path / "1.json", edits_file({"resize": "a", "size": 10}))
    second = write(tmp_path / "2.json", edits_file({"resize": "a", "by": 1}))
    argv = ["--resize", "a=+2", "--edits", first, "--drop", "d", "--edits", second]
    _, obj = run_json(capture, *argv, "--resize", "a=+4", *FAST)
    assert [e["place"] for e in obj["edits"]] == [
        f"{first}: edits[0]",
        f"{second}: edits[0]",
        "--resize a=+2",
        "--drop d",
        "--resize a=+4",
    ]
    out_path = tmp_path / "out.json"
    run(capture, *argv, "--resize", "a=+4", "-o", str(out_path), *FAST)
    assert read_capture(out_path).request_by_id["a"].size == 10 + 1 + 2 + 4
    # Reversed, an absolute size last wins.
    run(capture, "--resize", "a=+2", "--resize", "a=7", "-o", str(out_path), *FAST)
    assert read_capture(out_path).request_by_id["a"].size == 7


def test_the_sequences_of_1_0_through_the_command_line() -> None:
    # A sequence id stands for its members; dropping one closes the sequence up.
    code, obj = run_json(ONE_ZERO, "--drop", "w3.attn_qkv[1]", "--resize", "w3.mlp_up=+8", *FAST)
    assert code == 1
    assert obj["edits"][0]["requests"] == ["w3.attn_qkv[1]"]
    assert obj["edits"][1]["requests"] == [f"w3.mlp_up[{k}]" for k in range(4)]
    assert obj["after"]["lower_bound"] == obj["before"]["lower_bound"] - 27_648 + 4 * 8


def test_the_json_shape(tmp_path: Path) -> None:
    capture = write(tmp_path / "wi.json", SMALL)
    code, obj = run_json(capture, "--resize", "b=35", "--capacity-add", "64", *FAST)
    assert code == 0
    assert list(obj) == ["capture", "tile", "edits", "before", "after", "windows", "stopped"]
    assert obj["edits"] == [
        {"edit": {"resize": "b", "size": 35}, "place": "--resize b=35", "requests": ["b"]},
        {"edit": {"capacity_add": 64}, "place": "--capacity-add 64", "requests": []},
    ]
    assert obj["after"]["available"] == obj["before"]["available"] + 64
    assert obj["windows"] == [{"before": [0], "after": []}]


# --------------------------------------------------------------------------- bad input

BAD: list[tuple[list[str], str]] = [
    ([], "tilefit: whatif: no edits: give --drop"),
    (["--json"], "tilefit: whatif: no edits"),
    (["--edits", "{empty}"], "tilefit: whatif: no edits"),
    (["--drop", "zz"], "tilefit: --drop zz: no request or sequence id matches 'zz'"),
    (["--resize", "b=0"], "tilefit: --resize b=0: must be > 0, got 0"),
    (["--resize", "b=-45"], "tilefit: --resize b=-45: b would be 0 B"),
    (["--resize", "b"], "tilefit: --resize b: must be ID=BYTES"),
    (["--lifetime", "b=0:11"], "tilefit: --lifetime b=0:11: the lifetime [0, 11) must satisfy"),
    (["--lifetime", "b=4:2"], "tilefit: --lifetime b=4:2: the lifetime [4, 2) must satisfy 0 <="),
    (["--capacity-add", "0"], "tilefit: --capacity-add 0: must not be 0"),
    (["--capacity-add", "-100"], "tilefit: --capacity-add -100: removes 100 B of the 100 B"),
    (["--capacity-add", str(2**62)], "tilefit: --capacity-add 4611686018427387904: must be below"),
    (["--resize", "p.a=12"], "tilefit: --resize p.a=12: no base offset aligns every member"),
    (["--edits", "{bad}"], "tilefit: {bad}: edits[0].by: must be an integer, got a string"),
    (["--edits", "{unknown}"], "tilefit: {unknown}: edits[0].drop: no request or sequence id"),
    (["--edits", "{missing}"], "tilefit: {missing}: no such file"),
    (["--drop", "a", "--time-limit", "inf"], "tilefit: --time-limit: must be a number"),
    (["--drop", "a", "--workers", "0"], "tilefit: --workers: must be at least 1"),
    (["--drop", "a", "-o", "{csv}"], "tilefit: --output: writes a JSON capture"),
]


@pytest.mark.parametrize(("argv", "expected"), BAD)
def test_bad_input_exits_2_with_one_line(
    argv: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(json.dumps(SMALL))
    doc["requests"] += [
        {"id": "p.a", "size": 16, "alignment": 16, "start": 0, "end": 2},
        {"id": "p.b", "size": 8, "alignment": 8, "start": 0, "end": 2},
    ]
    doc["sequences"] = [{"id": "p", "members": ["p.a", "p.b"]}]
    capture = write(tmp_path / "wi.json", doc)
    files = {
        "empty": write(tmp_path / "empty.json", edits_file()),
        "bad": write(tmp_path / "bad.json", edits_file({"resize": "a", "by": "8"})),
        "unknown": write(tmp_path / "unknown.json", edits_file({"drop": "zz"})),
        "missing": str(tmp_path / "missing.json"),
        "csv": str(tmp_path / "out.csv"),
    }
    argv = [a.format(**files) for a in argv]
    expected = expected.format(**files)
    out_path = tmp_path / "out.json"
    code, out, err = run(capture, *argv, *([] if "-o" in argv else ["-o", str(out_path)]))
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1 and err.startswith(expected), err
    assert not out_path.exists() and not (tmp_path / "out.csv").exists()


@FUZZ
@given(mutated(edits_file({"resize": "b", "by": -5}, {"lifetime": "c", "start": 1, "end": 3})))
def test_mutated_edits_files_give_a_verdict_or_one_line(doc: Any) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        capture = write(Path(tmp) / "wi.json", SMALL)
        edits = Path(tmp) / "e.json"
        edits.write_text(json.dumps(doc, allow_nan=True))
        code, _, err = run(capture, "--edits", str(edits), *FAST)
        assert "Traceback" not in err
        assert code in (0, 1, 2)
        if code == 2:
            assert len(err.splitlines()) == 1 and err.startswith("tilefit: "), err


# --------------------------------------------------------------------------- docs/edits.md

EDITS_PAGE = ROOT / "docs" / "edits.md"


def test_the_pages_edits_file_applies_to_1_0(tmp_path: Path) -> None:
    block = re.search(r"```json\n(.*?)```", EDITS_PAGE.read_text(), re.S)
    assert block is not None
    path = tmp_path / "e.json"
    path.write_text(block.group(1))
    code, obj = run_json(ONE_ZERO, "--edits", str(path), *FAST)
    assert code in (0, 1)
    assert [len(e["requests"]) for e in obj["edits"]] == [1, 4, 4, 1, 0]


def test_the_pages_error_lines_are_real(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = EDITS_PAGE.read_text()
    shown = re.search(r"```\n(tilefit: .*?)```", text, re.S)
    assert shown is not None
    lines = shown.group(1).splitlines()
    monkeypatch.chdir(tmp_path)
    files = [
        edits_file({"drop": "a"}, {"drop": "b"}, {"resize": "x", "by": "8"}),
        edits_file({"resize": "x"}),
        edits_file({"drop": "w3.attn_qkv"}, {"drop": "m9.*"}),
        edits_file(
            *[{"capacity_add": 1}] * 3,
            {"lifetime": "m0.l3.q", "start": 50, "end": 60},
        ),
    ]
    got = []
    for doc in files:
        write(tmp_path / "e.json", doc)
        got.append(run(ONE_ZERO, "--edits", "e.json", *FAST)[2].rstrip("\n"))
    got.append(run(ONE_ZERO, "--resize", "w3.attn_qkv[0]=27647", *FAST)[2].rstrip("\n"))
    assert got == lines
