"""Issue 13: Ctrl-C at any moment exits 130 with one line; a closed pipe exits quietly."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil  # a dependency of distributed, in the test extra
import pytest
from checkout import ROOT

import tilefit
from tilefit.formats.save import atomic_path

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals and pipes")

EXAMPLE = ROOT / "examples" / "0-0.json"


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
    _assert_answered(proc.returncode, stderr.decode(), out, delay)


def _entry_interrupted_importing_argparse(
    raising: str, cwd: Path, as_module: bool = False
) -> tuple[int, str]:
    """``tilefit bound x.json`` through ``tilefit.__main__.entry``, with ``raising`` (lines
    of Python defining ``interrupt()``) run when the command's modules import argparse;
    run as ``python -c`` or, ``as_module``, as ``python -m``."""
    script = (
        "import builtins, sys\n"
        f"{raising}"
        "real = builtins.__import__\n"
        "def fake(name, *a, **k):\n"
        "    if name == 'argparse':\n"
        "        interrupt()\n"
        "    return real(name, *a, **k)\n"
        "sys.modules.pop('argparse', None)\n"
        "builtins.__import__ = fake\n"
        "from tilefit.__main__ import entry\n"
        "entry()\n"
    )
    if as_module:
        (cwd / "drive.py").write_text(script)
        start = ["-m", "drive"]
    else:
        start = ["-c", script]
    proc = subprocess.run([sys.executable, *start, "bound", "x.json"], capture_output=True, cwd=cwd)
    return proc.returncode, proc.stderr.decode()


def test_ctrl_c_during_import_of_the_command_modules(tmp_path: Path) -> None:
    """A KeyboardInterrupt raised while ``tilefit.cli`` loads is one line, exit 130."""
    raising = "def interrupt():\n    raise KeyboardInterrupt\n"
    code, err = _entry_interrupted_importing_argparse(raising, tmp_path)
    assert (code, err) == (130, "tilefit: interrupted\n")


def test_ctrl_c_wrapped_by_a_class_definition_is_still_ctrl_c(tmp_path: Path) -> None:
    """Python 3.11 wraps a KeyboardInterrupt raised in ``__set_name__`` (a Ctrl-C while
    ``ipaddress`` defines its classes, seen in CI) in a RuntimeError: one line, exit 130."""
    raising = (
        "class Named:\n"
        "    def __set_name__(self, owner, name):\n"
        "        raise KeyboardInterrupt\n"
        "def interrupt():\n"
        "    type('Network', (), {'address': Named()})\n"
    )
    code, err = _entry_interrupted_importing_argparse(raising, tmp_path)
    assert (code, err) == (130, "tilefit: interrupted\n")


def test_a_runtime_error_not_from_ctrl_c_is_not_taken_for_one() -> None:
    from tilefit.model.errors import by_interrupt

    wrapped = RuntimeError("Error calling __set_name__")
    wrapped.__cause__ = KeyboardInterrupt()
    assert by_interrupt(wrapped)
    assert by_interrupt(KeyboardInterrupt())
    other = RuntimeError("something else")
    other.__context__ = KeyboardInterrupt()  # only a cause says "because of Ctrl-C"
    assert not by_interrupt(other)
    assert by_interrupt(other, context=True)  # numba's object mode: the driver asks so
    assert not by_interrupt(RuntimeError("plain"))


def test_ctrl_c_escaping_code_run_from_a_string_under_python_m(tmp_path: Path) -> None:
    """numba's compiler runs generated code with ``exec(text)``; a Ctrl-C escaping it made
    ``python -m tilefit`` print the line and then die by SIGINT (status -2, not 130),
    because CPython notes such an interrupt as unhandled. Only ``-m`` shows it. Here in
    the command (``cli.main`` answers it), below while its modules import."""
    (tmp_path / "drive.py").write_text(
        "import tilefit.cli.common as common\n"
        "def check_outputs(*args):\n"
        "    exec('raise KeyboardInterrupt')\n"
        "common.check_outputs = check_outputs\n"
        "from tilefit.__main__ import entry\n"
        "entry()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "drive", "bound", "x.json"], capture_output=True, cwd=tmp_path
    )
    assert (proc.returncode, proc.stderr.decode()) == (130, "tilefit: interrupted\n")


def test_ctrl_c_escaping_code_run_from_a_string_while_importing(tmp_path: Path) -> None:
    """The same while the command's modules import (``tilefit.__main__.entry`` answers it)."""
    raising = "def interrupt():\n    exec('raise KeyboardInterrupt')\n"
    code, err = _entry_interrupted_importing_argparse(raising, tmp_path, as_module=True)
    assert (code, err) == (130, "tilefit: interrupted\n")


PACKAGE = Path(tilefit.__file__).resolve().parent  # import tilefit takes no signal


def _console_script() -> list[str]:
    """The installed ``tilefit`` command (what a user runs), else ``python -m tilefit``."""
    script = Path(sys.executable).parent / "tilefit"
    return [str(script)] if script.exists() else [sys.executable, "-m", "tilefit"]


# The statement of ``tilefit.__main__`` that installs its handler: until it has run, a
# Ctrl-C is Python's (a window of a few statements).
_INSTALLED_AT = next(
    number
    for number, line in enumerate((PACKAGE / "__main__.py").read_text().splitlines(), 1)
    if line.strip() == "signal(SIGINT, _early)"
)


def _python_owns(traceback: str) -> bool:
    """A traceback from before tilefit could answer: no frame in tilefit's modules but
    the package face (which runs before ``tilefit.__main__`` and imports nothing) and
    ``tilefit.__main__``'s own statements before its handler is installed."""
    frames = re.findall(r'File "([^"]+)", line (\d+), in (\S+)', traceback)

    def before_handler(file: str, line: str, scope: str) -> bool:
        path = Path(file).resolve()
        if path.parent != PACKAGE:
            return False
        if path.name == "__init__.py":
            return True
        return path.name == "__main__.py" and scope == "<module>" and int(line) <= _INSTALLED_AT

    ours = [f for f in frames if Path(f[0]).resolve().is_relative_to(PACKAGE)]
    return all(before_handler(*f) for f in ours)


def _assert_answered(returncode: int, err: str, out: Path, delay: float) -> None:
    """A ``synth -o OUT`` sent Ctrl-C after ``delay`` seconds: tilefit's one line and
    exit 130 with no output, or the end of the command, or Python's own answer if the
    interrupt came before tilefit's first statements (on a loaded machine, start-up
    takes past 40 ms)."""
    assert not list(out.parent.glob("*.partial")), "a partial output file was left"
    if (returncode, err) == (130, "tilefit: interrupted\n"):
        assert not out.exists(), "an output file was left"
    elif returncode == 0:
        # It finished first, or Python's start-up reported the interrupt itself and
        # went on ("Failed checking if argv[0] is an import path entry").
        assert err == "" or ("KeyboardInterrupt" in err and _python_owns(err)), (delay, err)
    else:
        # Python's own answer: silent -2 before its handler exists, its traceback,
        # or 1 when its start-up failed ("Fatal Python error: init_import_site").
        assert returncode in (-signal.SIGINT, 1) and _python_owns(err), (delay, err)
        assert not out.exists(), "an output file was left"


@pytest.mark.parametrize("command", ["script", "module"])
def test_ctrl_c_in_the_first_milliseconds(command: str, tmp_path: Path) -> None:
    """From the first tilefit statement on, a Ctrl-C is one line and exit 130. Earlier
    (Python's start-up, site, the console script's ``import re``, finding the package)
    it is Python's: a silent -2 before its handler exists, then its traceback, or its
    report of the interrupt before it runs the command anyway."""
    argv = _console_script() if command == "script" else [sys.executable, "-m", "tilefit"]
    out = tmp_path / "m.jsonl"
    # Where start-up ends depends on the machine (about 16 ms idle here, past 40 ms
    # loaded), so the steps go on past it; the later delays are test_ctrl_c_at_any_moment's.
    for delay in (0, 0.002, 0.005, 0.008, 0.011, 0.014, 0.017, 0.02, 0.025, 0.03, 0.04, 0.06):
        proc = subprocess.Popen(
            [*argv, "synth", "-o", str(out), "--tiles", "400"],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        began = time.perf_counter()
        while time.perf_counter() - began < delay:
            pass  # a busy wait: sleep() overshoots by more than these steps
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
        _assert_answered(proc.returncode, stderr.decode(), out, delay)
        out.unlink(missing_ok=True)


_TRACED = """
import os, signal, sys
fire_at = int(sys.argv.pop(1))
main_file = sys.argv.pop(1)  # the rest is the command
seen = 0

def lines(frame, event, arg):
    global seen
    if event == "line":
        seen += 1
        if seen == fire_at:
            print(f"fired at line {frame.f_lineno}", file=sys.stderr, flush=True)
            os.kill(os.getpid(), signal.SIGINT)
    return lines

def calls(frame, event, arg):
    return lines if frame.f_code.co_filename == main_file else None

sys.settrace(calls)
try:
    from tilefit.__main__ import entry  # as the console script does
    entry()
finally:
    sys.settrace(None)
    if seen < fire_at:
        print(f"lines {seen}", file=sys.stderr)
"""


def test_ctrl_c_at_every_line_of_the_entry_module(tmp_path: Path) -> None:
    """Deterministic: SIGINT at each line tilefit/__main__.py runs (its body, then
    ``entry`` up to the command). From the handler's install to the command, every
    one is one line and exit 130."""
    main_file = str(PACKAGE / "__main__.py")
    source = Path(main_file).read_text().splitlines()
    install = next((n for n, line in enumerate(source, 1) if "signal(SIGINT, _early)" in line), 0)
    # The except clause's lines run only as the command's own SystemExit leaves entry:
    # the work is done by then (an interrupt there, on the way out, stays Python's).
    leaving = source.index("    except (KeyboardInterrupt, RuntimeError) as error:") + 1

    def run(fire_at: int) -> tuple[int, str]:
        proc = subprocess.run(
            # experiment: a command that ends through the interpreter's exit (bound's
            # quick exit would skip the probe's own count of the lines it ran).
            [sys.executable, "-c", _TRACED, str(fire_at), main_file, "experiment", str(EXAMPLE)],
            capture_output=True,
            cwd=tmp_path,
            timeout=120,
        )
        return proc.returncode, proc.stderr.decode()

    code, err = run(10**6)  # never fires: how many lines are there?
    assert code == 0, err
    total = int(err.split()[-1])
    assert total > 5, err
    covered = 0
    for fire_at in range(1, total + 1):
        code, err = run(fire_at)
        first, _, rest = err.partition("\n")
        line = int(first.removeprefix("fired at line "))
        if line <= install or line >= leaving:
            continue  # before the handler (a few built-in lookups) or on the way out
        covered += 1
        assert (code, rest) == (130, "tilefit: interrupted\n"), (line, err)
    assert covered >= 3, covered


_SWALLOWED = """
import os, signal, sys
from tilefit.__main__ import entry
import tilefit.cli

when = sys.argv.pop(1)

class Bomb:
    def __del__(self):
        if when == "early":  # Ctrl-C arrives in a __del__ while the modules load
            os.kill(os.getpid(), signal.SIGINT)
        else:  # ... or once the command runs: its KeyboardInterrupt is raised in there
            raise KeyboardInterrupt

command = tilefit.cli.entry
def late(*args):
    Bomb()
    command(*args)

if when == "early":
    Bomb()
tilefit.cli.entry = late if when == "late" else command
entry()
"""


@pytest.mark.parametrize("when", ["early", "late"])
def test_ctrl_c_inside_a_del_or_weakref_callback(when: str, tmp_path: Path) -> None:
    """Python only prints an exception raised in ``__del__`` or a weakref callback
    ("Exception ignored in ...") and goes on: seen once in a few hundred early Ctrl-Cs,
    in an import's module-lock callback, and the command then ran to the end."""
    out = tmp_path / "m.jsonl"
    argv = [sys.executable, "-c", _SWALLOWED, when, "synth", "-o", str(out), "--tiles", "3"]
    proc = subprocess.run(argv, capture_output=True, cwd=tmp_path, timeout=120)
    assert (proc.returncode, proc.stderr.decode()) == (130, "tilefit: interrupted\n")
    assert not out.exists()


def test_import_tilefit_loads_nothing_and_takes_no_signal() -> None:
    """The package face runs before the command can answer Ctrl-C, and a library must
    not take SIGINT from its host: ``import tilefit`` loads no module, sets no handler."""
    probe = (
        "import signal, sys\n"
        "before = set(sys.modules)\n"
        "import tilefit\n"
        "print(sorted(set(sys.modules) - before))\n"
        "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["['tilefit']", "True"], out.stdout


def test_a_host_keeps_its_own_sigint_handler() -> None:
    probe = (
        "import signal\n"
        "mine = lambda signum, frame: None\n"
        "signal.signal(signal.SIGINT, mine)\n"
        "import tilefit.__main__\n"
        "print(signal.getsignal(signal.SIGINT) is mine)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout == "True\n"


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
    # On a cold cache the kernels' compile says so first (two lines of its own).
    said = [line for line in err.splitlines() if "search kernels" not in line]
    assert said == ["tilefit: interrupted"], err
    assert not out.exists()


@pytest.mark.parametrize(
    "command",
    [
        ["solve", "--workers", "1"],
        ["diagnose", "--workers", "1"],
        ["solve", "--minimize", "--workers", "1"],
        ["solve", "--node-limit", "1000000000000"],
    ],
    ids=["solve", "diagnose", "solve-minimize", "solve-node-limit"],
)
def test_ctrl_c_during_the_in_process_search(command: list[str], tmp_path: Path) -> None:
    """Issue 27: the search in this process (one worker, or the bare exact search) reads
    the clock in numba's object mode, where Ctrl-C ended in a SystemError and 57 lines.
    The tile has no pinned block, so the exact search runs first, for a tenth of the limit
    (12 s here): the signal lands inside the compiled kernel."""
    from tilefit.formats.save import write_capture
    from tilefit.generate.planted import PlantedRecipe, planted_tile
    from tilefit.search.compiling import ensure_compiled

    ensure_compiled()  # the kernels load from the cache in the command: no compiling there
    recipe = PlantedRecipe(density=0.97, seed=1, requests=400, sequence_share=0, conflict_share=0)
    capture, _ = planted_tile(recipe)
    write_capture(capture, tmp_path / "free.json")
    out = tmp_path / "p.json"
    proc = _start(
        command[0], "free.json", *command[1:], "--time-limit", "120", "-o", str(out), cwd=tmp_path
    )
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    err = stderr.decode()
    assert proc.returncode == 130, err
    assert err == "tilefit: interrupted\n"
    assert not out.exists()
