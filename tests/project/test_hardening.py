"""Issue 13: every bad input, signal and pipe gets a clear answer."""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
from checkout import ROOT

from tilefit.cli import main
from tilefit.formats.load import capture_from_json, parse_json, read_capture
from tilefit.formats.minimalloc import capture_from_csv
from tilefit.model.errors import INT_LIMIT, InputError

GOOD: dict[str, Any] = {
    "format": "tilefit-capture",
    "version": 1,
    "horizon": 4,
    "memory": {"size": 64, "ranges": [{"start": 0, "end": 64}]},
    "requests": [{"id": "a", "size": 8, "start": 0, "end": 4}],
}


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# --------------------------------------------------------------------------- limits


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("memory", "size"), 2**70),
        (("horizon",), 2**65),
        (("requests", 0, "size"), 2**66),
        (("requests", 0, "alignment"), 2**62),
        (("requests", 0, "end"), 10**400),
        (("memory", "size"), "-1" + "0" * 5000),
        (("tile",), 2**62),
    ],
)
def test_integers_from_2_62_up_are_located_bad_input(
    path: tuple[Any, ...], value: int | str
) -> None:
    obj = json.loads(json.dumps(GOOD))
    target = obj
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = "HUGE"
    text = json.dumps(obj).replace('"HUGE"', str(value))  # a number past 4300 digits too
    with pytest.raises(InputError) as info:
        capture_from_json(parse_json(text))
    place = ".".join(str(k) for k in path).replace(".0.", "[0].")
    assert info.value.place == place
    assert "2^62" in info.value.rule


def test_largest_valid_integer_is_accepted() -> None:
    obj = json.loads(json.dumps(GOOD))
    obj["memory"]["size"] = INT_LIMIT - 1
    obj["memory"]["ranges"][0]["end"] = INT_LIMIT - 1
    assert capture_from_json(parse_json(json.dumps(obj))).memory.size == INT_LIMIT - 1


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("id,lower,upper,size\na,0,1,73786976294838206464\n", "line 2: column 'size'"),
        ("id,lower,upper,size\na,0,4611686018427387904,1\n", "line 2: column 'upper'"),
        ("id,lower,upper,size\na,0,1," + "9" * 5000 + "\n", "line 2: column 'size'"),
    ],
)
def test_csv_integers_from_2_62_up_are_located_bad_input(text: str, where: str) -> None:
    with pytest.raises(InputError) as info:
        capture_from_csv(text, "t.64.csv")
    assert info.value.message.startswith(where)
    assert "2^62" in info.value.message


def test_csv_capacity_from_2_62_up_is_bad_input() -> None:
    with pytest.raises(InputError, match="2\\^62"):
        capture_from_csv("id,lower,upper,size\na,0,1,1\n", "t.csv", capacity=2**62)


def test_csv_order_message_quotes_both_columns() -> None:
    with pytest.raises(InputError) as info:
        capture_from_csv("id,lower,upper,size\nx,4,4,4\n", "t.64.csv")
    assert info.value.message == "line 2: column 'upper' must be > 'lower'"


@pytest.mark.parametrize("command", ["diagnose", "solve", "bound", "replay", "plot"])
def test_huge_numbers_exit_2_with_one_line(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    obj = json.loads(json.dumps(GOOD))
    obj["requests"][0]["size"] = 2**66
    obj["memory"]["size"] = 2**70
    path = tmp_path / "big.json"
    path.write_text(json.dumps(obj))
    extra = ["-o", str(tmp_path / "x.svg")] if command == "plot" else []
    assert main([command, str(path), *extra]) == 2
    assert "2^62" in one_error_line(capsys)


def _spread(horizon: int, n: int = 1000) -> dict[str, Any]:
    rnd = random.Random(7)
    scale = horizon // 1000
    requests = []
    for k in range(n):
        a = rnd.randrange(0, 1000)
        b = rnd.randrange(a + 1, 1001)
        size = rnd.randrange(1, 64) * 16
        requests.append({"id": f"r{k}", "size": size, "start": a * scale, "end": b * scale})
    size = 1 << 15  # tight: the strategies and bounds all have work to do
    return {
        "format": "tilefit-capture",
        "version": 1,
        "horizon": horizon,
        "memory": {"size": size, "ranges": [{"start": 0, "end": size}]},
        "requests": requests,
    }


@pytest.mark.parametrize("command", ["bound", "replay", "diagnose"])
def test_horizon_1e15_runs_as_fast_as_1e3(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    times = []
    codes = []
    for horizon in (10**3, 10**15):
        path = tmp_path / f"h{horizon}.json"
        path.write_text(json.dumps(_spread(horizon)))
        read_capture(path)  # warm the imports
        argv = [command, str(path), "--json"]
        if command == "diagnose":
            argv += ["--time-limit", "2", "--workers", "1"]
        began = time.perf_counter()
        codes.append(main(argv))
        times.append(time.perf_counter() - began)
        capsys.readouterr()
    assert codes[0] == codes[1]
    assert times[1] < 3 * times[0] + 1.0, times


# --------------------------------------------------------------------------- options and paths


def _good(tmp_path: Path) -> str:
    path = tmp_path / "good.json"
    path.write_text(json.dumps(GOOD))
    return str(path)


@pytest.mark.parametrize(
    "argv",
    [
        ["diagnose", "{c}", "--time-limit", "nan"],
        ["diagnose", "{c}", "--time-limit", "inf"],
        ["diagnose", "{c}", "--time-limit", "-1"],
        ["diagnose", "{c}", "--workers", "100000000000000000000"],
        ["solve", "{c}", "--time-limit", "nan"],
        ["solve", "{c}", "--time-limit", "1e300"],
        ["report", "{c}", "-o", "{t}/r.html", "--time-limit", "nan"],
        ["batch", "{c}", "--db", "{t}/r.sqlite", "--time-limit", "nan"],
        ["batch", "{c}", "--db", "{t}/r.sqlite", "--jobs", "99999999999"],
        ["synth", "-o", "{t}/m.jsonl", "--tiles", "1", "--pressure", "inf"],
        ["synth", "-o", "{t}/m.jsonl", "--tiles", "1", "--pressure", "nan"],
        # Found by the synth fuzz test: a recipe keeps 4 decimals, so a pressure this
        # small became 0 (ValueError); 1e305 overflowed (OverflowError); 1e300 wrote
        # sizes past 2^62 that no command could read back.
        ["synth", "-o", "{t}/m.jsonl", "--tiles", "1", "--pressure", "5e-324"],
        ["synth", "-o", "{t}/m.jsonl", "--tiles", "1", "--pressure", "1e305"],
        ["synth", "-o", "{t}/m.jsonl", "--tiles", "1", "--pressure", "1e300"],
        ["synth", "-o", "{t}/m.jsonl", "--tiles", "1", "--seed", "-1"],
        ["synth", "-o", "{t}/m.jsonl", "--tiles", "1", "--seed", str(2**64)],
        ["synth", "-o", "{t}/m.jsonl", "--tiles", str(2**64)],
        ["synth", "-o", "{t}/m.jsonl", "--requests", str(2**64)],
    ],
)
def test_numeric_options_reject_nan_inf_and_huge(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cap = _good(tmp_path)
    filled = [a.format(c=cap, t=tmp_path) for a in argv]
    assert main(filled) == 2
    line = one_error_line(capsys)
    assert line.startswith("tilefit: --"), line
    assert not (tmp_path / "m.jsonl").exists()


def test_missing_file_names_file_and_reason(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagnose", "missing.json"]) == 2
    assert one_error_line(capsys) == "tilefit: missing.json: no such file"


def test_a_folder_given_as_capture(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bound", str(tmp_path)]) == 2
    assert one_error_line(capsys) == f"tilefit: {tmp_path}: is a folder, not a file"


@pytest.mark.parametrize("name", ["s.txt", "s.csv", "s.JSONL.bak"])
def test_synth_refuses_an_output_with_a_file_suffix(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / name
    assert main(["synth", "-o", str(out), "--tiles", "1"]) == 2
    assert "--output" in one_error_line(capsys)
    assert not out.exists()


@pytest.mark.parametrize("pressure", ["0.0001", "1000"])
def test_synth_pressure_limits_write_captures_that_load(pressure: str, tmp_path: Path) -> None:
    out = tmp_path / "m.jsonl"
    assert main(["synth", "-o", str(out), "--tiles", "2", "--requests", "20",
                 "--pressure", pressure]) == 0  # fmt: skip
    lines = out.read_text().splitlines()
    assert [capture_from_json(parse_json(line)).name for line in lines] == [
        "model-tile0000",
        "model-tile0001",
    ]


def test_synth_refuses_a_prefix_that_is_not_a_file_name_before_making_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found by the synth fuzz test: ValueError from write_folder, after it made the folder.
    out = tmp_path / "tiles"
    assert main(["synth", "-o", str(out), "--tiles", "1", "--prefix", "a/b"]) == 2
    assert one_error_line(capsys).startswith("tilefit: --prefix: ")
    assert not out.exists()
    bundle = tmp_path / "m.jsonl"  # in a bundle a name is only a name
    assert (
        main(["synth", "-o", str(bundle), "--tiles", "1", "--requests", "8", "--prefix", "a/b"])
        == 0
    )
    assert capture_from_json(parse_json(bundle.read_text())).name == "a/b-tile0000"


def test_synth_refuses_an_empty_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["synth", "-o", "", "--tiles", "1"]) == 2
    assert one_error_line(capsys).startswith("tilefit: --output: is empty")
    assert list(tmp_path.iterdir()) == []  # Path("") is the current folder: nothing there


def test_an_unwritable_output_names_the_users_path_not_the_temporary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found by the synth fuzz test: "tilefit: .m.jsonl.4242.partial: Is a directory".
    folder = tmp_path / "m.jsonl"
    folder.mkdir()
    assert main(["synth", "-o", str(folder), "--tiles", "1", "--requests", "8"]) == 2
    assert one_error_line(capsys) == f"tilefit: --output: {folder}: is a folder, not a file"
    missing = tmp_path / "nodir" / "r.html"
    assert main(["report", _good(tmp_path), "-o", str(missing), "--time-limit", "1"]) == 2
    assert one_error_line(capsys) == (
        f"tilefit: -o: {missing}: no folder {missing.parent}: make it first, or name another"
    )


def test_an_output_without_a_file_name_is_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Path("").with_name(...) raised ValueError: report -o '' ended in a traceback.
    assert main(["report", _good(tmp_path), "-o", "/", "--time-limit", "1"]) == 2
    assert one_error_line(capsys) == "tilefit: -o: /: is a folder, not a file"


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "CAPTURE", "-o", ""],
        ["diagnose", "CAPTURE", "-o", ""],
        ["place", "CAPTURE", "-o", ""],
        ["batch", "CAPTURE", "--db", ""],
        ["batch", "CAPTURE", "--db", "r.db", "--csv", ""],
        ["diff", "CAPTURE", "CAPTURE", "--edits-out", ""],
        ["whatif", "CAPTURE", "--drop", "a", "-o", ""],
    ],
)
def test_an_empty_file_name_is_refused_before_any_work(
    argv: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # diagnose -o '' and batch --csv '' took the empty name as "no file" and wrote nothing.
    monkeypatch.chdir(tmp_path)
    good = _good(tmp_path)
    assert main([good if a == "CAPTURE" else a for a in argv]) == 2
    option = argv[argv.index("") - 1]
    name = "--output" if option == "-o" else option
    assert one_error_line(capsys) == f"tilefit: {name}: is empty: name a file"
    assert sorted(p.name for p in tmp_path.iterdir()) == [Path(good).name]


@pytest.mark.parametrize(
    "argv",
    [
        ["synth", "-o", "m.jsonl", "--tiles", "1e3"],
        ["synth", "-o", "m.jsonl", "--pressure", "x"],
        ["bound"],
        ["frobnicate"],
        ["plot", "c.json", "--placement", "p", "--strategy", "s", "-o", "x.png"],
    ],
)
def test_a_usage_error_is_one_line(
    argv: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Found by the synth fuzz test: argparse printed its usage block above the error.
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    line = one_error_line(capsys)
    assert line.startswith("tilefit: ") and line.endswith(" --help)"), line
    assert not (tmp_path / "m.jsonl").exists()


def test_synth_refuses_an_existing_file_as_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "plain"
    out.write_text("keep me")
    assert main(["synth", "-o", str(out), "--tiles", "1"]) == 2
    assert "not a folder" in one_error_line(capsys)
    assert out.read_text() == "keep me"


# --------------------------------------------------------------------------- README


def test_readme_says_which_commands_take_json() -> None:
    """The README claimed every command takes --json; plot, report, convert and compile
    refuse it."""
    from tilefit.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    without = {
        name
        for name, command in sub.choices.items()  # type: ignore[union-attr]
        if "--json" not in command._option_string_actions
    }
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    # The sentence may be wrapped anywhere in its paragraph, never across paragraphs (the
    # command table's last row stands right above it).
    sentences = [
        sentence
        for paragraph in readme.split("\n\n")
        for sentence in " ".join(paragraph.split()).split(". ")
    ]
    said = [s for s in sentences if "take no `--json`" in s or "takes no `--json`" in s]
    named = {word for s in said for word in re.findall(r"`(\w+)`", s)}
    assert without == {"plot", "report", "convert", "compile"}
    assert named == without, said


# --------------------------------------------------------------------------- check


def test_check_a_capture_given_as_placement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cap = _good(tmp_path)
    assert main(["check", cap, cap]) == 2
    line = one_error_line(capsys)
    assert "this is a capture, not a placement" in line
    assert line.startswith(f"tilefit: {cap}: format:")


def test_a_placement_given_as_capture(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    placement = tmp_path / "p.json"
    placement.write_text(json.dumps({"format": "tilefit-placement", "version": 1, "offsets": {}}))
    assert main(["diagnose", str(placement)]) == 2
    assert "this is a placement, not a capture" in one_error_line(capsys)


def test_check_flags_a_placement_for_another_capture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cap = tmp_path / "tile7.json"
    cap.write_text(json.dumps({**GOOD, "name": "tile7"}))
    placement = tmp_path / "p.json"
    body = {"format": "tilefit-placement", "version": 1, "offsets": {"a": 0}}
    placement.write_text(json.dumps({**body, "capture": "tile8"}))
    assert main(["check", str(cap), str(placement)]) == 2
    line = one_error_line(capsys)
    assert "for capture 'tile8', not 'tile7'" in line
    placement.write_text(json.dumps({**body, "capture": "tile7"}))
    assert main(["check", str(cap), str(placement)]) == 0
    placement.write_text(json.dumps(body))  # no name: nothing to compare
    assert main(["check", str(cap), str(placement)]) == 0


def test_a_sequence_whose_alignments_combine_past_2_62(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the fuzz tests: an OverflowError in the search's problem tables."""
    obj = json.loads(json.dumps(GOOD))
    obj["requests"] = [
        {"id": "a", "size": 16, "alignment": 2**62 - 1, "start": 0, "end": 4},
        {"id": "b", "size": 16, "alignment": 8, "start": 0, "end": 4},
    ]
    obj["sequences"] = [{"id": "S", "members": ["a", "b"]}]
    path = tmp_path / "seq.json"
    path.write_text(json.dumps(obj))
    assert main(["solve", str(path), "--time-limit", "1"]) == 2
    assert "sequences[0].members" in one_error_line(capsys)


def test_a_csv_field_past_the_csv_modules_limit_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found by the long fuzz run: csv.Error escaped as a traceback.
    path = tmp_path / "big.12.csv"
    path.write_text("id,lower,upper,size\n" + "a" * 200_000 + ",0,1,4\n")
    assert main(["bound", str(path)]) == 2
    line = one_error_line(capsys)
    assert "line 2" in line and "not CSV" in line


def test_plot_of_a_capture_without_requests(tmp_path: Path) -> None:
    # Found by the fuzz tests once they ran plot: an empty legend raised ValueError.
    path = tmp_path / "empty.64.csv"
    path.write_text("id,lower,upper,size,alignment\n")
    assert main(["plot", str(path), "--profile", "-o", str(tmp_path / "m.svg")]) == 0
    assert (tmp_path / "m.svg").exists()
