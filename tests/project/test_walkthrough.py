"""The walkthrough's console blocks are real: each command prints what the page shows.

A block is ```console with lines ``$ tilefit ARGS`` followed by the output; a
last output line ``...`` means the page shows only the beginning. Commands run
in a scratch folder holding a copy of examples/, in page order, so a file one
command writes (``-o``) is there for the next.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
from pathlib import Path

import pytest
from checkout import ROOT

from tilefit.cli import main

PAGE = ROOT / "docs" / "walkthrough.md"
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def commands() -> list[tuple[list[str], list[str], int]]:
    out: list[tuple[list[str], list[str], int]] = []
    for block in BLOCK.findall(PAGE.read_text()):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            first, *rest = chunk.rstrip("\n").split("\n")
            args = shlex.split(first)
            assert args[0] == "tilefit"
            code = 0
            if rest and rest[-1].startswith("[exit "):
                code = int(rest.pop()[len("[exit ") : -1])
            out.append((args[1:], rest, code))
    return out


def test_page_has_commands() -> None:
    assert len(commands()) >= 8


def test_every_command_prints_what_the_page_shows(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        for args, shown, code in commands():
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                got = main(args)
            printed = buffer.getvalue().rstrip("\n").split("\n")
            assert got == code, args
            if shown and shown[-1] == "...":
                assert printed[: len(shown) - 1] == shown[:-1], args
            else:
                assert printed == shown, args
    finally:
        os.chdir(here)


@pytest.mark.parametrize("name", ["0-0.json", "1-0.json", "1-0-baseline.json"])
def test_page_names_the_examples(name: str) -> None:
    assert f"examples/{name}" in PAGE.read_text()
