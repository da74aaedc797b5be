"""Issue 27: no command writes over one of its inputs; every file written is whole or absent."""

from __future__ import annotations

import ast
import os
import shutil
from pathlib import Path

import pytest
from checkout import ROOT

import tilefit
from tilefit.batch.row import COLUMNS
from tilefit.batch.store import Store
from tilefit.cli import main

EXAMPLES = ROOT / "examples"
SOURCE = Path(tilefit.__file__).resolve().parent


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    return err.strip()


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file below ``folder``: its bytes and modification time."""
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


# Each: the command line (run in a folder holding mine.json, a copy of examples/0-0.json,
# base.json, p.json, edits.json and model.tflite), the option refused, the input named.
OVERWRITES = [
    (["diagnose", "mine.json", "-o", "mine.json"], "-o", "mine.json"),
    (["solve", "mine.json", "-o", "mine.json"], "-o", "mine.json"),
    (["solve", "mine.json", "--minimize", "-o", "mine.json"], "-o", "mine.json"),
    (["place", "mine.json", "-o", "mine.json"], "-o", "mine.json"),
    (["replay", "mine.json", "-o", "mine.json"], "-o", "mine.json"),
    (["convert", "mine.json", "-o", "mine.json"], "-o", "mine.json"),
    (["convert", "mine.json", "-o", "p.json", "--placement", "p.json"], "-o", "p.json"),
    (["report", "mine.json", "-o", "mine.json"], "-o", "mine.json"),
    (["plot", "mine.json", "-o", "mine.json"], "-o", "mine.json"),
    (["plot", "mine.json", "--placement", "p.json", "-o", "p.json"], "-o", "p.json"),
    (["whatif", "mine.json", "--drop", "x", "-o", "mine.json"], "-o", "mine.json"),
    (["whatif", "mine.json", "--edits", "edits.json", "-o", "edits.json"], "-o", "edits.json"),
    (["diff", "base.json", "mine.json", "--edits-out", "base.json"], "--edits-out", "base.json"),
    (["diff", "base.json", "mine.json", "--edits-out", "mine.json"], "--edits-out", "mine.json"),
    (["batch", "mine.json", "--db", "mine.json"], "--db", "mine.json"),
    (["batch", "mine.json", "--db", "r.sqlite", "--csv", "mine.json"], "--csv", "mine.json"),
    (["export", "tflm", "model.tflite", "p.json", "-o", "p.json"], "-o", "p.json"),
    (["export", "tflm", "model.tflite", "p.json", "-o", "model.tflite"], "-o", "model.tflite"),
    (["replan", "tflm", "model.tflite", "-o", "model.tflite"], "-o", "model.tflite"),
    (
        ["replan", "tflm", "model.tflite", "-o", "m.tflite", "--placement", "model.tflite"],
        "--placement",
        "model.tflite",
    ),
    (["import", "tflm", "model.tflite", "-o", "model.tflite"], "-o", "model.tflite"),
]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copy(EXAMPLES / "0-0.json", tmp_path / "mine.json")
    shutil.copy(EXAMPLES / "1-0-baseline.json", tmp_path / "base.json")
    (tmp_path / "p.json").write_text('{"format": "tilefit-placement"}\n')
    shutil.copy(EXAMPLES / "edits" / "1-0-early-cast.json", tmp_path / "edits.json")
    (tmp_path / "model.tflite").write_bytes(b"not read: refused before")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("argv", "option", "given"), [pytest.param(*case, id=" ".join(case[0])) for case in OVERWRITES]
)
def test_no_command_writes_over_its_input(
    argv: list[str],
    option: str,
    given: str,
    folder: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # diagnose mine.json -o mine.json wrote a placement over the capture and exited 0.
    before = _snapshot(folder)
    assert main(argv) == 2
    line = _one_error_line(capsys)
    assert line == f"tilefit: {option}: would write over the input {given}: name another file"
    assert _snapshot(folder) == before


@pytest.mark.parametrize("how", ["symlink", "hard link", "another spelling", "linked folder"])
def test_the_same_file_by_another_name_is_the_same_file(
    how: str, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if how == "symlink":
        (folder / "link.json").symlink_to("mine.json")
        output = "link.json"
    elif how == "hard link":
        os.link(folder / "mine.json", folder / "link.json")
        output = "link.json"
    elif how == "another spelling":
        output = str(folder / "." / "mine.json")
    else:
        (folder / "here").symlink_to(folder, target_is_directory=True)
        output = "here/mine.json"
    before = _snapshot(folder)
    assert main(["diagnose", "mine.json", "-o", output]) == 2
    assert "would write over the input mine.json" in _one_error_line(capsys)
    assert _snapshot(folder) == before
    # And the other way round: the link read, the file itself written.
    if how in ("symlink", "hard link"):
        assert main(["place", "link.json", "-o", "mine.json"]) == 2
        assert "would write over the input link.json" in _one_error_line(capsys)
        assert _snapshot(folder) == before


def test_batch_refuses_outputs_over_a_file_of_an_input_folder(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tiles = folder / "tiles"
    tiles.mkdir()
    shutil.copy(folder / "mine.json", tiles / "a.json")
    before = _snapshot(folder)
    assert main(["batch", "tiles", "--db", "r.sqlite", "--csv", "tiles/a.json"]) == 2
    assert _one_error_line(capsys).startswith("tilefit: --csv: would write over the input ")
    assert main(["batch", "tiles", "--db", "tiles/a.json"]) == 2
    assert _one_error_line(capsys).endswith("a.json: name another file")
    assert _snapshot(folder) == before  # no database made either


def test_two_outputs_of_one_command_are_two_files(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _snapshot(folder)
    assert main(["batch", "mine.json", "--db", "r.sqlite", "--csv", "r.sqlite"]) == 2
    assert _one_error_line(capsys) == (
        "tilefit: --csv: names the same file as --db: name another file"
    )
    assert _snapshot(folder) == before


def test_the_summary_database_is_an_input(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batch", "mine.json", "--db", "r.sqlite", "--quiet", "--jobs", "1"]) == 0
    before = _snapshot(folder)
    assert main(["batch", "--summary", "r.sqlite", "--csv", "r.sqlite"]) == 2
    assert _one_error_line(capsys) == (
        "tilefit: --csv: would write over the input r.sqlite: name another file"
    )
    assert _snapshot(folder) == before


def test_writing_into_an_input_folder_is_not_writing_over_it(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A folder output is written into, never over: only files are compared.
    assert main(["synth", "--tiles", "2", "--requests", "8", "-o", "out/"]) == 0
    assert main(["batch", "out", "--db", "out/r.sqlite", "--quiet", "--jobs", "1"]) == 0
    assert (folder / "out" / "r.sqlite").is_file()


def test_an_output_that_exists_and_is_no_input_is_replaced(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "old.json").write_text("old")
    assert main(["place", "mine.json", "-o", "old.json"]) == 0
    assert "tilefit-placement" in (folder / "old.json").read_text()


def test_the_csv_export_is_whole_or_absent(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["batch", "mine.json", "base.json", "--db", "r.sqlite", "--quiet"]) == 0
    (folder / "r.csv").write_text("the previous export\n")
    before = _snapshot(folder)
    import tilefit.batch.store as store

    calls = 0
    real = store._cell

    def interrupted(value: object, column: str) -> str:
        nonlocal calls
        calls += 1
        if calls > len(COLUMNS):  # the second row, the first one written
            raise KeyboardInterrupt
        return real(value, column)

    monkeypatch.setattr(store, "_cell", interrupted)
    with Store.open(folder / "r.sqlite", create=False) as db, pytest.raises(KeyboardInterrupt):
        db.export_csv(folder / "r.csv")
    assert _snapshot(folder) == before  # the old export whole, no partial file beside it


# The calls that write a file, and the blocks a file may be written in: a temporary path
# renamed over the target at the end (formats.save.atomic_path), or a temporary folder.
_WRITE_METHODS = {"write_text", "write_bytes", "savefig", "tofile"}
_WHOLE_OR_ABSENT = {"atomic_path", "TemporaryDirectory", "NamedTemporaryFile"}


def _writes(node: ast.Call) -> bool:
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in _WRITE_METHODS:
        return True
    modes = [a for a in node.args[1:2] if isinstance(a, ast.Constant)]
    modes += [
        k.value for k in node.keywords if k.arg == "mode" and isinstance(k.value, ast.Constant)
    ]
    opens = (isinstance(func, ast.Name) and func.id == "open") or (
        isinstance(func, ast.Attribute) and func.attr == "open"
    )
    if isinstance(func, ast.Attribute) and func.attr == "open":
        modes += [a for a in node.args[:1] if isinstance(a, ast.Constant)]
    return opens and any(isinstance(m.value, str) and set(m.value) & set("wax+") for m in modes)


def _guarded(with_items: list[ast.withitem]) -> bool:
    for item in with_items:
        call = item.context_expr
        if isinstance(call, ast.Call):
            name = call.func.attr if isinstance(call.func, ast.Attribute) else None
            name = call.func.id if isinstance(call.func, ast.Name) else name
            if name in _WHOLE_OR_ABSENT:
                return True
    return False


def _unguarded_writes(tree: ast.AST) -> list[int]:
    found: list[int] = []

    def visit(node: ast.AST, guarded: bool) -> None:
        if isinstance(node, ast.With):
            guarded = guarded or _guarded(node.items)
        if isinstance(node, ast.Call) and _writes(node) and not guarded:
            found.append(node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child, guarded)

    visit(tree, False)
    return found


def test_every_file_is_written_whole_or_not_at_all() -> None:
    """Every write in the package happens under ``atomic_path`` (or into a temporary
    folder): an error or Ctrl-C part-way leaves the previous file, or none."""
    unguarded = {
        str(path.relative_to(SOURCE)): lines
        for path in sorted(SOURCE.rglob("*.py"))
        if (lines := _unguarded_writes(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert unguarded == {}


def test_the_guard_finds_a_plain_write() -> None:
    plain = "from pathlib import Path\nPath('x').write_text('y')\nopen('z', 'w')\n"
    assert _unguarded_writes(ast.parse(plain)) == [2, 3]
    guarded = "with atomic_path('x') as temp:\n    temp.write_text('y')\n"
    assert _unguarded_writes(ast.parse(guarded)) == []
