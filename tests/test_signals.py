"""Issue 13: Ctrl-C at any moment exits 130 with one line; a closed pipe exits quietly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil  # a dependency of distributed, in the test extra
import pytest

from tilefit.formats.save import atomic_path

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals and pipes")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "0-0.json"


def _start(*argv: str, cwd: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tilefit", *argv],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.mark.parametrize("delay", [0.05, 0.15, 0.3, 0.6])
def test_ctrl_c_at_any_moment_exits_130_with_one_line(delay: float, tmp_path: Path) -> None:
    """Early delays land while the modules import; later ones while it loads and works."""
    out = tmp_path / "m.jsonl"
    proc = _start("synth", "-o", str(out), "--tiles", "400", cwd=tmp_path)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    err = stderr.decode()
    assert "Traceback" not in err
    if proc.returncode == 0:  # it finished first: nothing to check
        return
    assert proc.returncode in (130, -signal.SIGINT), err  # -2: before Python itself started
    assert len(err.splitlines()) <= 1
    if proc.returncode == 130:
        assert err == "tilefit: interrupted\n"
    assert not out.exists(), "a partial output file was left"
    assert not list(tmp_path.glob("*.partial"))


def test_ctrl_c_during_import_of_the_command_modules(tmp_path: Path) -> None:
    """A KeyboardInterrupt raised while ``tilefit.cli`` loads is one line, exit 130."""
    script = (
        "import builtins, sys\n"
        "real = builtins.__import__\n"
        "def fake(name, *a, **k):\n"
        "    if name == 'argparse':\n"
        "        raise KeyboardInterrupt\n"
        "    return real(name, *a, **k)\n"
        "sys.modules.pop('argparse', None)\n"
        "builtins.__import__ = fake\n"
        "from tilefit.__main__ import entry\n"
        "entry()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, "bound", "x.json"], capture_output=True, cwd=tmp_path
    )
    assert proc.returncode == 130
    assert proc.stderr.decode() == "tilefit: interrupted\n"


def test_closed_stdout_exits_quietly_141(tmp_path: Path) -> None:
    proc = _start("experiment", str(EXAMPLE), "--json", cwd=tmp_path)
    assert proc.stdout is not None
    proc.stdout.close()  # like `| head` that already left
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 141, stderr
    assert stderr == b""


def test_a_reader_that_leaves_early(tmp_path: Path) -> None:
    proc = _start("synth", "-o", str(tmp_path / "m.jsonl"), "--tiles", "1", "--json", cwd=tmp_path)
    proc.wait(timeout=60)
    assert proc.returncode == 0
    shell = subprocess.run(
        f"{sys.executable} -m tilefit bound {EXAMPLE} --json | head -c 1 >/dev/null;"
        ' echo "${PIPESTATUS[0]}"',
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        cwd=tmp_path,
    )
    assert shell.stdout.decode().strip() in ("0", "141")  # 0: it all fit in the pipe first
    assert shell.stderr == b""


def test_atomic_path_leaves_nothing_on_interrupt(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    with pytest.raises(KeyboardInterrupt), atomic_path(target) as temp:
        temp.write_text(json.dumps({"partial": True}))
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []
    with atomic_path(target) as temp:
        temp.write_text("whole")
    assert target.read_text() == "whole"


def test_ctrl_c_during_the_search_portfolio(tmp_path: Path) -> None:
    """Ctrl-C at the terminal reaches the whole process group, the search's members too:
    one line from the parent, exit 130, no placement file, no member's traceback."""
    from tilefit.formats.save import write_capture
    from tilefit.generate.planted import PlantedRecipe, planted_tile

    capture, _ = planted_tile(PlantedRecipe(density=0.97, seed=1, requests=400))
    write_capture(capture, tmp_path / "hard.json")
    out = tmp_path / "p.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tilefit", "diagnose", "hard.json", "--time-limit", "60",
         "--workers", "2", "-o", str(out)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip
    parent = psutil.Process(proc.pid)
    deadline = time.monotonic() + 120  # a fresh clone compiles the kernel first
    while len(parent.children()) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(parent.children()) == 2, "the search members never started"
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    err = stderr.decode()
    assert proc.returncode == 130, err
    assert err == "tilefit: interrupted\n"
    assert not out.exists()
