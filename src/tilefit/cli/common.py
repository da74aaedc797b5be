"""What every command shares: input arguments, JSON output, exit codes."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tilefit.model.capture import Capture
    from tilefit.model.placement import Placement

EXIT_OK = 0  # success, or fits
EXIT_NO = 1  # a domain "no": invalid, does not fit, infeasible, undetermined
EXIT_USAGE = 2  # bad input or usage
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)
EXIT_BROKEN_PIPE = 141  # stdout closed by its reader (128 + SIGPIPE), quietly


# Worker processes (--workers, --jobs): more than this is a typo that would fork a storm.
MAX_PROCESSES = 1024

# A time limit past this many seconds (about 31 years) is a typo, and it overflows timers.
MAX_SECONDS = 1e9


def check_seconds(value: float, option: str, *, allow_zero: bool = False) -> float:
    """A time limit: a finite number of seconds, > 0 (or >= 0); nan and inf are bad input."""
    from tilefit.model.errors import InputError

    low_ok = value >= 0 if allow_zero else value > 0
    if not (low_ok and value <= MAX_SECONDS):  # false for nan too
        bound = ">= 0" if allow_zero else "> 0"
        raise InputError(option, f"must be a number of seconds {bound} and <= {MAX_SECONDS:.0e}")
    return value


@dataclass
class Invocation:
    """One call of a command, as ``tilefit.cli.main`` hands it over (``args.invocation``)."""

    started: float
    """When the command began (monotonic): the process's first statements when run as
    ``tilefit`` (``tilefit.__main__``), else when ``main`` was called. The commands'
    ``--time-limit`` counts from here."""

    quick_exit: bool = False
    """Set by a command that loaded the search kernels, or numpy and nothing to clean up
    (``bound``): ``tilefit.cli.entry`` then ends the process without the interpreter's
    teardown (its output flushed), which takes 0.4 s once numba's kernels are loaded and
    would come out of no limit, and 20 ms of ``bound``'s 120 once numpy is."""


def time_left(started: float, time_limit: float) -> float:
    """What is left of a command's ``--time-limit`` that began at ``started`` (monotonic)."""
    import time

    return max(0.0, time_limit - (time.monotonic() - started))


def check_count(value: int | None, option: str, minimum: int, maximum: int | None = None) -> None:
    """An integer option: at least ``minimum``, below 2^62 (or at most ``maximum``)."""
    from tilefit.model.errors import INT_LIMIT, InputError

    if value is None:
        return
    if value < minimum:
        raise InputError(option, f"must be at least {minimum}")
    top = INT_LIMIT - 1 if maximum is None else maximum
    if value > top:
        raise InputError(option, f"must be at most {top}")


def silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush cannot fail again."""
    with suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def add_capture_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "capture",
        metavar="CAPTURE",
        help="a capture (.json) or a minimalloc CSV (id,lower,upper,size[,alignment])",
    )
    parser.add_argument(
        "--capacity",
        type=int,
        default=None,
        metavar="BYTES",
        help=(
            "the memory to ask about: a minimalloc CSV's size (default: from NAME.CAPACITY.csv); "
            "on a JSON capture of one memory range, that range's bytes (it keeps its start)"
        ),
    )


def add_time_limit_argument(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument("--time-limit", type=float, default=10.0, metavar="SECONDS", help=help)


def add_workers_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="processes the search races on (default: up to 2 cores; 1: in turn, in-process)",
    )


def add_json_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")


READS = (
    "capture",
    "placement",
    "base",
    "other",
    "edit_files",
    "inputs",
    "summary",
    "dumps",
    "model",
)
"""The arguments (argparse dests) that name files a command reads, unless its module says
otherwise (``READS`` in the command's module)."""

WRITES = {"output": "-o", "db": "--db", "csv": "--csv", "edits_out": "--edits-out"}
"""The options (argparse dests, and how the user writes them) that name a file or folder a
command writes, unless its module says otherwise (``WRITES`` in the command's module)."""


FOLDERS: tuple[str, ...] = ()
"""The options among ``WRITES`` (argparse dests) that may name a folder the command makes,
with its parents, unless its module says otherwise (``FOLDERS`` in the command's module)."""


def check_outputs(
    args: argparse.Namespace,
    reads: Sequence[str],
    writes: dict[str, str],
    folders: Sequence[str] = FOLDERS,
) -> None:
    """Every output can be written, and none is one of the inputs: ``tilefit.cli.main``
    asks this before any work, of the arguments ``reads`` and the options ``writes`` (of
    which ``folders`` may be folders the command makes) of the command."""
    inputs: list[str] = []
    for dest in reads:
        value = getattr(args, dest, None)
        inputs += [v for v in (value if isinstance(value, list) else [value]) if v]
    outputs = [(option, v) for dest, option in writes.items() if (v := getattr(args, dest, None))]
    refuse_overwrite(outputs, inputs)
    for dest, option in writes.items():
        if value := getattr(args, dest, None):
            check_writable(option, value, folder=dest in folders)


def check_toolchain_inputs(args: argparse.Namespace) -> None:
    """A command of one toolchain (``import``, ``export``, ``replan``) handed another's file
    says which command reads it, before any work."""
    from tilefit.formats.foreign import refuse_elsewhere

    name = getattr(args, "toolchain", None)
    if name is None:
        return
    for path in [*getattr(args, "dumps", []), *[p for p in [getattr(args, "model", None)] if p]]:
        refuse_elsewhere(path, name, f"tilefit {args.command} {name}")


def check_writable(option: str, path: str | Path, *, folder: bool = False) -> None:
    """InputError unless ``path`` can be written: a file's folder exists and can be written
    into, and the file is no folder; a ``folder`` (made with its parents if missing) is
    none of its parents' files, and the nearest that exists can be written into."""
    from tilefit.model.errors import InputError

    path = Path(path)
    if folder:
        if path.exists() and not path.is_dir():
            raise InputError(option, f"{path}: is a file, not a folder: name a folder")
        existing = next((p for p in (path, *path.parents) if p.exists()), Path("."))
        if not existing.is_dir():
            raise InputError(option, f"{path}: {existing} is a file, not a folder")
        if not os.access(existing, os.W_OK | os.X_OK):
            raise InputError(option, f"{path}: the folder {existing} cannot be written into")
        return
    if path.is_dir():
        raise InputError(option, f"{path}: is a folder, not a file")
    parent = path.parent
    if not parent.exists():
        raise InputError(option, f"{path}: no folder {parent}: make it first, or name another")
    if not parent.is_dir():
        raise InputError(option, f"{path}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(option, f"{path}: the folder {parent} cannot be written into")
    if path.exists() and not os.access(path, os.W_OK):
        raise InputError(option, f"{path}: the file cannot be written")


def refuse_overwrite(outputs: Sequence[tuple[str, str]], inputs: Sequence[str | Path]) -> None:
    """InputError when an output (``(option, path)``) is one of the ``inputs`` or another
    output: the same file by any name (links included), not only the same spelling.

    A folder is not written over (a command writes into it), and an input that does not
    exist is no one's to lose (reading it says so)."""
    from tilefit.model.errors import InputError

    for k, (option, path) in enumerate(outputs):
        for given in inputs:
            if _same_file(path, given):
                raise InputError(option, f"would write over the input {given}: name another file")
        for other_option, other in outputs[:k]:
            if os.path.realpath(path) == os.path.realpath(other):
                raise InputError(
                    option, f"names the same file as {other_option}: name another file"
                )


def _same_file(output: str | Path, given: str | Path) -> bool:
    try:
        return os.path.samefile(output, given) and not os.path.isdir(output)
    except (OSError, ValueError):  # one of them does not exist (or is no path): not the same
        return False


def read_capture_arg(args: argparse.Namespace) -> Capture:
    from tilefit.formats.load import read_capture

    return read_capture(args.capture, capacity=args.capacity)


def write_found(placement: Placement | None, output: str | None) -> None:
    """Write the placement a command found to ``-o FILE``, when there are both."""
    if placement is not None and output:
        from tilefit.formats.save import write_placement

        write_placement(placement, output)


def steps_text(start: int, end: int) -> str:
    """A run of steps as every command writes it: ``54``, or ``[40, 43)`` for several."""
    return str(start) if end == start + 1 else f"[{start}, {end})"


def spans_text(spans: Sequence[tuple[int, int]], empty: str) -> str:
    """Address intervals as ``[a, b) [c, d)``; ``empty`` when there are none."""
    return " ".join(f"[{start}, {end})" for start, end in spans) or empty


def print_json(obj: Any) -> None:
    """One JSON object, keys in a fixed order, so the same input prints the same bytes.
    Encoded whole, then written: ``json.dump`` writes piece by piece, ten times slower on
    a placement of a million offsets; a placement's offsets are joined in one go."""
    from tilefit.formats.jsontext import json_text

    sys.stdout.write(json_text(obj, indent=2) + "\n")


def table(rows: Sequence[Sequence[str]], indent: str = "") -> list[str]:
    """Rows of cells as left-aligned columns; the last column is not padded."""
    if not rows:
        return []
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]) - 1)]
    return [
        indent + "  ".join([*(c.ljust(w) for c, w in zip(row[:-1], widths, strict=True)), row[-1]])
        for row in rows
    ]
