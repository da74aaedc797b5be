"""Issue 13: fuzzing. Mutated captures, placements and CSVs through every command.

Each run either gives a result (exit 0 or 1, no traceback) or is bad input:
exit 2 with exactly one line ``tilefit: ...`` on stderr. The commands run in
process (``tilefit.cli.main``), so an uncaught exception fails the test.
``batch`` runs over a folder of mutated files with one local worker (where a bad
capture is an error row, not bad input), and ``synth`` over odd option values
and output paths.

CI runs a small fixed budget. For a long local run::

    TILEFIT_FUZZ_EXAMPLES=2500 .venv/bin/python -m pytest tests/project/test_fuzz.py  # 15,000
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import sqlite3
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import pytest
from fuzzing import FUZZ, mutated
from hypothesis import given
from hypothesis import strategies as st

from tilefit.batch.store import SUMMARY_TOP
from tilefit.cli import main
from tilefit.cli.synth import MAX_REQUESTS, MAX_TILES
from tilefit.formats.load import capture_from_json, parse_json, read_capture
from tilefit.model.capture import Capture

CAPTURE: dict[str, Any] = {
    "format": "tilefit-capture",
    "version": 1,
    "name": "fz",
    "tile": 0,
    "horizon": 10,
    "memory": {
        "size": 128,
        "elements": [0, 64],
        "interleaved_offset": 96,
        "ranges": [
            {"start": 0, "end": 112, "name": "main"},
            {"start": 112, "end": 128, "classes": ["scratch"]},
        ],
    },
    "requests": [
        {"id": "a", "size": 16, "alignment": 8, "start": 0, "end": 10, "class": "resident"},
        {"id": "b", "size": 16, "alignment": 8, "start": 0, "end": 10, "class": "resident"},
        {"id": "c", "size": 32, "start": 2, "end": 6},
        {"id": "s", "size": 8, "start": 3, "end": 5, "class": "scratch"},
        {"id": "i", "size": 8, "start": 1, "end": 4, "interleaved": True},
    ],
    "sequences": [{"id": "S", "members": ["a", "b"]}],
    "conflicts": [["S", "c"]],
    "production": ["lifetime/first-fit", "alignment/first-fit"],
    "observed": {"failed": "c"},
}
PLACEMENT: dict[str, Any] = {
    "format": "tilefit-placement",
    "version": 1,
    "capture": "fz",
    "offsets": {"a": 0, "b": 16, "c": 32, "s": 112, "i": 96},
}
CSV = "id,lower,upper,size,alignment\na,0,4,16,8\nb,1,3,8,1\nc,2,6,32,4\n"
PLACED_CSV = "id,lower,upper,size,offset\na,0,4,16,0\nb,1,3,8,16\n"


def _text(doc: Any) -> str:
    return json.dumps(doc, allow_nan=True)


@st.composite
def damaged_text(draw: st.DrawFn, text: str) -> str:
    how = draw(st.sampled_from(["truncate", "bytes", "deep", "splice"]))
    if how == "truncate":
        return text[: draw(st.integers(0, len(text)))]
    if how == "bytes":
        return draw(st.text(max_size=200))
    if how == "deep":
        depth = draw(st.sampled_from([10, 1000, 100_000]))
        return "[" * depth + "]" * draw(st.sampled_from([0, depth]))
    at = draw(st.integers(0, len(text)))
    return (
        text[:at] + draw(st.sampled_from(["9" * 5000, "-", "\x00", '"', "}", "1e999"])) + text[at:]
    )


def _run(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


def _run_out(argv: list[str]) -> tuple[int, str, str]:
    """Exit code, stdout and stderr; argparse's refusals (SystemExit) included."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def _commands(capture: str, placement: str, tmp: str) -> list[list[str]]:
    return [
        ["bound", capture, "--json"],
        ["replay", capture],
        ["place", capture, "--json"],
        ["experiment", capture, "--json"],
        ["diagnose", capture, "--time-limit", "0.2", "--workers", "1", "-o", f"{tmp}/p.json"],
        ["solve", capture, "--time-limit", "0.2", "--json"],
        ["check", capture, placement, "--json"],
        ["convert", capture, "-o", f"{tmp}/out.json"],
        ["plot", capture, "--profile", "--time-limit", "0.2", "-o", f"{tmp}/map.svg"],
        ["plot", capture, "--placement", placement, "--time-limit", "0.2", "-o", f"{tmp}/p.svg"],
        ["report", capture, "--time-limit", "0.2", "-o", f"{tmp}/report.html"],
    ]


def _assert_clean(argv: list[str], code: int, err: str) -> None:
    assert "Traceback" not in err, (argv, err)
    assert code in (0, 1, 2), (argv, code, err)
    if code == 2:
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("tilefit: "), (argv, err)


def _every_command(capture_text: str, placement_text: str, suffix: str = ".json") -> None:
    with TemporaryDirectory() as tmp:
        capture = Path(tmp) / f"fz.64{suffix}"
        placement = Path(tmp) / f"fz.placement{suffix}"
        capture.write_text(capture_text, encoding="utf-8")
        placement.write_text(placement_text, encoding="utf-8")
        for argv in _commands(str(capture), str(placement), tmp):
            code, err = _run(argv)
            _assert_clean(argv, code, err)


@FUZZ
@given(mutated(CAPTURE))
def test_mutated_captures(doc: Any) -> None:
    _every_command(_text(doc), _text(PLACEMENT))


@FUZZ
@given(mutated(PLACEMENT))
def test_mutated_placements(doc: Any) -> None:
    _every_command(_text(CAPTURE), _text(doc))


@FUZZ
@given(st.one_of(damaged_text(_text(CAPTURE)), damaged_text(CSV)))
def test_damaged_text(text: str) -> None:
    _every_command(text, _text(PLACEMENT))
    _every_command(text, PLACED_CSV, suffix=".csv")


@st.composite
def mutated_csv(draw: st.DrawFn) -> str:
    rows = [line.split(",") for line in CSV.splitlines()]
    for _ in range(draw(st.integers(1, 3))):
        r = draw(st.integers(0, len(rows) - 1))
        c = draw(st.integers(0, len(rows[r]) - 1))
        rows[r][c] = draw(
            st.sampled_from(["", "x", "-1", "0", str(2**62), str(2**70), "1.5", "upper", "a"])
        )
        if draw(st.booleans()):
            rows[r].append("7")
    return "\n".join(",".join(row) for row in rows) + "\n"


@FUZZ
@given(mutated_csv())
def test_mutated_csv(text: str) -> None:
    _every_command(text, PLACED_CSV, suffix=".csv")


# --------------------------------------------------------------------------- batch
#
# A bad capture inside a batch is not bad input for the run: docs/batch.md says
# it gets an error row with the loader's one-line message and the run goes on
# (exit 1 when any row is an error). Exit 2 is left for the run itself (here: no
# capture found at all).

BATCH_MODES = (
    ["--mode", "diagnose"],
    ["--no-search"],
    ["--mode", "replay"],
    ["--mode", "place"],
    ["--mode", "solve"],
)


@st.composite
def capture_text(draw: st.DrawFn) -> str:
    how = draw(st.sampled_from(["whole", "mutated", "damaged"]))
    if how == "whole":
        return _text(CAPTURE)
    if how == "mutated":
        return _text(draw(mutated(CAPTURE)))
    return draw(damaged_text(_text(CAPTURE)))


@st.composite
def batch_files(draw: st.DrawFn) -> dict[str, bytes]:
    """A model's files by relative path: captures in a folder (some in a subfolder, some
    hidden), a .jsonl bundle, bytes that are not UTF-8, and CSVs (under csv/)."""
    files: dict[str, bytes] = {}
    for k in range(draw(st.integers(0, 3))):
        under = draw(st.sampled_from(["", "sub/", ".hidden/"]))
        files[f"tiles/{under}t{k}.json"] = draw(capture_text()).encode()
    if draw(st.booleans()):
        lines = draw(st.lists(capture_text(), max_size=3))
        blank = draw(st.sampled_from(["", "\n", " \n"]))
        files["tiles/m.jsonl"] = (blank + "\n".join(lines) + "\n").encode()
    if draw(st.booleans()):
        files["tiles/raw.json"] = draw(st.binary(max_size=64))
    for k in range(draw(st.integers(0, 2))):
        name = draw(st.sampled_from([f"c{k}.64.csv", f"c{k}.csv", f"c{k}.0.csv"]))
        text = draw(st.one_of(st.just(CSV), mutated_csv(), damaged_text(CSV)))
        files[f"csv/{name}"] = text.encode()
    return files


def _expected_sources(files: dict[str, bytes]) -> tuple[int, int]:
    """What the inputs name: visible .json files, non-blank bundle lines, every CSV given;
    and of the .json files found in the folder, how many are whole JSON documents that
    name neither the capture format nor requests (another tool's: no row, said once)."""
    count = foreign = 0
    for name, data in files.items():
        if ".hidden/" in name:
            continue
        if name.endswith(".jsonl"):
            count += sum(1 for line in data.split(b"\n") if line.strip())
        elif name.endswith(".json") and _another_tools(data):
            foreign += 1
        else:
            count += 1
    return count, foreign


def _another_tools(data: bytes) -> bool:
    try:
        text = data.decode("utf-8")
        json.loads(text)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return False
    return '"tilefit-capture"' not in text and '"requests"' not in text


def _db_rows(db: Path) -> list[tuple[str, str | None]]:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return list(conn.execute("SELECT source, error FROM results"))


@FUZZ
@given(
    batch_files(),
    st.sampled_from(BATCH_MODES),
    st.sampled_from([[], ["--json"], ["--quiet"]]),
)
def test_batch_over_a_folder_of_mutated_captures(
    files: dict[str, bytes], mode: list[str], output: list[str]
) -> None:
    with TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "tiles").mkdir()
        for name, data in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(data)
        csvs = sorted(str(root / n) for n in files if n.startswith("csv/"))
        db, rows_csv = root / "r.sqlite", root / "rows.csv"
        # One local worker. The engine decides captures this small in milliseconds; the
        # worker is stopped at 10 s (twice the limit), which only a hang reaches, not a
        # loaded machine (at 2 s a load spike once stopped a 3-request CSV).
        argv = ["batch", str(root / "tiles"), *csvs, "--db", str(db), "--jobs", "1",
                "--time-limit", "5", "--csv", str(rows_csv), *mode, *output]  # fmt: skip
        code, out, err = _run_out(argv)
        _assert_clean(argv, code, err)
        expected, foreign = _expected_sources(files)
        if expected + foreign == 0:
            assert code == 2 and "no captures found" in err, (argv, code, err)
            return
        said = f"skipped {foreign} .json file" if foreign and output != ["--quiet"] else ""
        assert code in (0, 1) and (said in err if said else err == ""), (argv, code, err)
        rows = _db_rows(db)
        assert len(rows) == expected == len({source for source, _ in rows}), (argv, rows)
        errors = [(source, error) for source, error in rows if error is not None]
        assert code == (1 if errors else 0), (argv, code, errors)
        for source, error in errors:
            # The loader's located one-line message, not an engine bug, a dead worker
            # or the time limit.
            assert error.startswith(f"{source}: ") and "\n" not in error, (argv, error)
        with rows_csv.open(encoding="utf-8", newline="") as data:
            assert len(list(csv.DictReader(data))) == expected
        if output == ["--json"]:
            summary = json.loads(out)
            assert (summary["captures"], summary["errors"]) == (expected, len(errors))
        elif output == ["--quiet"]:
            assert out == ""
        else:
            noun = "capture" if expected == 1 else "captures"
            assert out.startswith(f"{expected} {noun} in r.sqlite"), out
            if len(errors) <= SUMMARY_TOP:  # the summary lists them, each with its source
                assert all(source in out for source, _ in errors), out


# --------------------------------------------------------------------------- synth

SYNTH_OPTIONS: dict[str, list[str]] = {
    "--tiles": ["1", "2", "3", "0", "-1", "1_0", "1e3", "nan", "inf", "x", "", "0x1",
                str(MAX_TILES + 1), str(2**62), str(2**64)],
    "--requests": ["1", "5", "40", "0", "-3", "1.5", "nan", "x", "",
                   str(MAX_REQUESTS + 1), str(2**64)],
    "--layers": ["1", "2", "24", "200", "0", "-1", "1e2", "nan", "x", str(2**62)],
    "--seed": ["0", "1", "-1", str(2**62 - 1), str(2**62), str(2**64), "nan", "x"],
    "--pressure": ["0", "-0", "-1", "5e-324", "1e-300", "0.5", "0.97", "1.1", "1e6",
                   "1e300", "1e305", "1e999", "nan", "inf", "-inf", "x", ""],
    "--prefix": ["", "p", "a/b", "a\\b", ".", "..", "x" * 300, "é", "-", " "],
}  # fmt: skip
# "plain" is a file and "dir", "dir.jsonl" are folders before each run.
SYNTH_OUTPUTS = [
    "m.jsonl",
    "m.json",
    "m.JSONL",
    "fold",
    "fold/",
    "s.txt",
    "",
    ".",
    "plain",
    "dir",
    "dir.jsonl",
    "nodir/m.jsonl",
    "plain/m.jsonl",
    "x" * 300 + ".jsonl",
]


@st.composite
def synth_argv(draw: st.DrawFn) -> list[str]:
    argv = ["synth", f"--output={draw(st.sampled_from(SYNTH_OUTPUTS))}"]
    # --tiles always: its default (1,472 tiles of 500 requests) is too much for a fuzz run.
    argv.append(f"--tiles={draw(st.sampled_from(SYNTH_OPTIONS['--tiles']))}")
    argv.append(f"--requests={draw(st.sampled_from(SYNTH_OPTIONS['--requests']))}")
    for option in ("--layers", "--seed", "--pressure", "--prefix"):
        if draw(st.booleans()):
            argv.append(f"{option}={draw(st.sampled_from(SYNTH_OPTIONS[option]))}")
    if draw(st.booleans()):
        argv.append("--json")
    return argv


def _files(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes (a folder made before the OS refused a
    file name in it may stay: it holds nothing)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _written(out: Path) -> list[Capture]:
    """Every capture synth wrote to ``out``, read back the way the other commands read it."""
    if out.suffix.lower() == ".jsonl":
        lines = out.read_text(encoding="utf-8").splitlines()
        return [capture_from_json(parse_json(line)) for line in lines]
    if out.suffix.lower() == ".json":
        return [read_capture(out)]
    return [read_capture(p) for p in sorted(out.glob("*.json"))]


@FUZZ
@given(synth_argv())
def test_synth_options_and_output_paths(argv: list[str]) -> None:
    _synth_once(argv)


# Draws of all options valid are rare above (1 of the 25 CI draws wrote anything, measured
# 2026-12-02), so the writing branch of _synth_once has fixed cases of its own.
@pytest.mark.parametrize("output", ["m.jsonl", "m.json", "m.JSONL", "fold", "fold/", "dir"])
@pytest.mark.parametrize("extra", [[], ["--json"], ["--layers=2", "--seed=1", "--prefix=p"]])
def test_synth_writes_what_it_says(output: str, extra: list[str]) -> None:
    tiles = 1 if output == "m.json" else 2  # a .json file holds one capture
    argv = ["synth", f"--output={output}", f"--tiles={tiles}", "--requests=5", *extra]
    assert _synth_once(argv) == 0, argv


def _synth_once(argv: list[str]) -> int:
    """Run synth in a fresh folder and check what it wrote, or that it wrote nothing."""
    with TemporaryDirectory() as tmp, contextlib.chdir(tmp):
        root = Path(tmp)
        (root / "plain").write_text("keep me")
        (root / "dir").mkdir()
        (root / "dir.jsonl").mkdir()
        before = _files(root)
        code, out, err = _run_out(argv)
        _assert_clean(argv, code, err)
        assert code in (0, 2), (argv, code, err)
        assert ".partial" not in err, (argv, err)  # name what the user gave, not our temp
        assert not list(root.rglob("*.partial")), argv
        if code == 2:
            assert _files(root) == before, argv  # bad input writes no file
            return code
        given = dict(a.split("=", 1) for a in argv[1:] if "=" in a)
        tiles = int(given["--tiles"])
        path = Path(given["--output"])
        captures = _written(path)
        assert len(captures) == tiles, (argv, len(captures))
        if "--json" in argv:
            assert json.loads(out)["captures"] == tiles
        else:
            assert out.startswith(f"wrote {tiles} capture"), out
    return code
