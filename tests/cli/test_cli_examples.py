"""Issue 27, defect 4: every example of every command's ``--help`` runs from a fresh clone.

The examples are the block under a command's ``example:`` (or ``examples:``) heading,
one command a line, up to the first blank line. They run in order, each command's in a
folder of its own that holds a copy of the repository's ``examples/`` (what a fresh clone
has), so a line may use what the lines before it wrote. A line's trailing comment may
say what the test needs to know:

- ``# ... exit N``: the exit code it documents (otherwise 0);
- ``# needs ...``: it needs what a clone does not have (a program of the user's, a
  compiler's dump, a cluster): the test skips it and says why. Keep these rare.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from checkout import ROOT

from tilefit.cli import build_parser

_HEADING = re.compile(r"^examples?:$")
_COMMENT = re.compile(r"\s+#\s")
_EXIT = re.compile(r"\bexit (\d+)\b")


@dataclass(frozen=True)
class Example:
    line: str  # as the help shows it, without the indent
    command: str  # the shell words, without the comment
    comment: str

    @property
    def needs(self) -> str | None:
        return self.comment if self.comment.startswith("needs ") else None

    @property
    def exit(self) -> int:
        found = _EXIT.search(self.comment)
        return int(found[1]) if found else 0


def examples(epilog: str) -> list[Example]:
    """The example block of a command's help text (its epilog)."""
    lines = epilog.splitlines()
    start = next((k for k, line in enumerate(lines) if _HEADING.match(line)), None)
    if start is None:
        return []
    found = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        assert line.startswith("  ") and not line.startswith("   "), f"not an example: {line!r}"
        command, comment = _split(line.strip())
        found.append(Example(line.strip(), command, comment))
    return found


def _split(line: str) -> tuple[str, str]:
    parts = _COMMENT.split(line, maxsplit=1)
    return (parts[0], parts[1]) if len(parts) == 2 else (parts[0], "")


def _epilogs() -> dict[str, str]:
    return {name: parser.epilog or "" for name, parser in build_parser().commands.items()}


def test_the_example_block_is_read_as_documented() -> None:
    text = (
        "example:\n"
        "  tilefit bound examples/1-0.json\n"
        "  tilefit diagnose examples/1-0.json --json     # capacity: exit 1\n"
        "  python train.py    # needs your own program\n"
        "\n"
        "  tilefit prose afterwards is not an example\n"
    )
    got = [(e.command, e.exit, e.needs) for e in examples(text)]
    assert got == [
        ("tilefit bound examples/1-0.json", 0, None),
        ("tilefit diagnose examples/1-0.json --json", 1, None),
        ("python train.py", 0, "needs your own program"),
    ]


AWAITING: dict[str, str] = {}
"""Commands whose examples are known not to run yet, and why: the test fails as soon as
they do, so that the entry goes."""


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=[pytest.mark.xfail(strict=True, reason=AWAITING[name])])
        if name in AWAITING
        else name
        for name in sorted(_epilogs())
    ],
)
def test_every_help_example_runs_from_a_fresh_clone(name: str, tmp_path: Path) -> None:
    epilog = _epilogs()[name]
    block = examples(epilog)
    assert block, f"tilefit {name} --help has no example"
    outside = [
        line.strip()
        for line in epilog.splitlines()
        if line.startswith("  tilefit ") and line.strip() not in {e.line for e in block}
    ]
    assert not outside, f"tilefit commands outside the example block, never run: {outside}"
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    skipped = []
    for example in block:
        if example.needs:
            skipped.append(f"{example.command}  ({example.needs})")
            continue
        words = shlex.split(example.command)
        assert words[0] == "tilefit", (
            f"{example.line!r}: not a tilefit command; mark what it needs: # needs ..."
        )
        done = subprocess.run(
            [sys.executable, "-m", "tilefit", *words[1:]],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
            env={k: v for k, v in os.environ.items() if k != "COLUMNS"},
        )
        assert done.returncode == example.exit, (
            f"{example.command}: exit {done.returncode}, documented {example.exit}\n{done.stderr}"
        )
        assert "Traceback" not in done.stderr, done.stderr
    if skipped:
        print(f"tilefit {name} --help: not run: " + "; ".join(skipped))


def test_the_minimalloc_example_is_what_its_readme_says() -> None:
    """examples/buffers.1024.csv: production fails on b12, the search fits it."""
    from tilefit.formats.load import read_capture
    from tilefit.verdicts.diagnose import diagnose

    capture = read_capture(ROOT / "examples" / "buffers.1024.csv")
    assert (len(capture.requests), capture.available) == (14, 1024)
    result = diagnose(capture, time_limit=30, workers=1)
    assert result.verdict == "fragmentation"
    failures = [a.failure for a in result.production]
    assert [f.unit.id if f else None for f in failures] == ["b12", "b12"]
    assert failures[0] is not None and [e - s for s, e in failures[0].holes] == [128, 64]
