"""Every Python example in docs/api.md runs and prints what the page says."""

from __future__ import annotations

import contextlib
import io
import os
import re

import pytest
from checkout import ROOT

BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def examples() -> list[tuple[str, str]]:
    text = (ROOT / "docs" / "api.md").read_text()
    out = []
    for block in BLOCK.findall(text):
        code = "\n".join(line for line in block.splitlines() if not line.startswith("# "))
        expected = "\n".join(line[2:] for line in block.splitlines() if line.startswith("# "))
        out.append((code, expected))
    return out


def test_the_api_page_has_examples_to_run() -> None:
    # a parametrised test over an empty list passes by running nothing
    assert len(examples()) >= 5


@pytest.mark.parametrize(("code", "expected"), examples())
def test_api_example(code: str, expected: str) -> None:
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            exec(compile(code, "docs/api.md", "exec"), {})
    finally:
        os.chdir(here)
    assert buffer.getvalue().strip() == expected.strip()
