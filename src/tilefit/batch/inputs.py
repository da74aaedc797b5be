"""Batch inputs: capture files, folders of them and ``.jsonl`` bundles, as sources.

A source is one capture's origin: a file, or one line of a bundle. Its key
(the file's absolute path, or ``PATH:LINE``) identifies its result row, so a
resumed run with the same inputs skips exactly what is recorded. Folders are
searched recursively for ``.json`` captures, ``.jsonl`` bundles and every
toolchain's files (an XLA module's ``*-buffer-assignment.txt``, a ``.tflite``
model: imported as ``tilefit import`` would; hidden entries skipped); a
minimalloc ``.csv`` is read only when named. A whole JSON document found in a folder
that names neither the capture format nor ``requests`` is another tool's (TPU-MLIR's
work folder holds its own): it gives no job, counted apart (``foreign``), where a
file named on the command line, or a broken one, would be an error row.

Reading a source's text happens later, one at a time (``load``), so a broken
file or line becomes an error row, not the end of the run. A toolchain's file
gives one job per capture it makes: none for a module with nothing to plan
(counted as skipped, not an error), several for a module with several heaps.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tilefit.batch.bundle import BUNDLE_SUFFIX, bundle_lines, read_line
from tilefit.model.errors import InputError
from tilefit.toolchains import claiming

FOLDER_SUFFIXES = (".json", BUNDLE_SUFFIX)


@dataclass(frozen=True, slots=True)
class Source:
    """Where one capture comes from."""

    key: str  # the file's absolute path, or PATH:LINE for a bundle line
    path: Path
    line: int | None = None  # 1-based line of a bundle
    offset: int = 0  # byte offset of that line
    toolchain: str | None = None  # the toolchain that imports this file, if any
    found: bool = False  # found in a folder, not named

    @property
    def default_name(self) -> str:
        """The name when the capture gives none, or cannot be read."""
        stem = self.path.stem
        return stem if self.line is None else f"{stem}-line{self.line}"


@dataclass(frozen=True, slots=True)
class Job:
    """What a worker needs for one capture: its text travels, not its path."""

    source: str  # Source.key
    name: str  # the default name
    filename: str  # tells JSON from minimalloc CSV, and may carry the CSV's capacity
    text: str


def expand(inputs: Iterable[str]) -> list[Source]:
    """Every capture source named by the inputs, in order, each once.

    A path that does not exist is a usage error (InputError).
    """
    seen: set[str] = set()
    out: list[Source] = []
    for given in inputs:
        path = Path(given)
        if not path.exists():
            raise InputError(given, "no such file or folder")
        for source in _sources(path):
            if source.key not in seen:
                seen.add(source.key)
                out.append(source)
    return out


def _sources(path: Path, found: bool = False) -> Iterator[Source]:
    if path.is_dir():
        for child in sorted(_files(path)):
            yield from _sources(child, found=True)
    elif path.suffix.lower() == BUNDLE_SUFFIX:
        where = path.resolve()
        for line, offset in bundle_lines(where):
            yield Source(f"{where}:{line}", where, line, offset)
    else:
        where = path.resolve()
        chain = claiming(where)
        yield Source(
            str(where), where, toolchain=None if chain is None else chain.name, found=found
        )


def _files(folder: Path) -> Iterator[Path]:
    for child in folder.rglob("*"):
        hidden = any(part.startswith(".") for part in child.relative_to(folder).parts)
        wanted = child.suffix.lower() in FOLDER_SUFFIXES or claiming(child) is not None
        if not hidden and child.is_file() and wanted:
            yield child


def load(source: Source) -> list[Job]:
    """A source's jobs (a toolchain's file may give none or several);
    InputError (located) when it cannot be read."""
    if source.toolchain is not None:
        return _imported(source, source.toolchain)
    try:
        raw = (
            source.path.read_bytes()
            if source.line is None
            else read_line(source.path, source.offset)
        )
        text = _decode(raw)
    except InputError as error:
        raise error.located(source.key) from None
    except OSError as error:
        raise InputError("", f"cannot read: {error.strerror}", source.key) from None
    if foreign(source, text):
        return []
    return [Job(source.key, source.default_name, source.path.name, text)]


CAPTURE_MARKS = ('"tilefit-capture"', '"requests"')
"""Words a capture's text holds (its format, its one required list)."""


def foreign(source: Source, text: str) -> bool:
    """Whether ``source`` is a ``.json`` file found in a folder that is no capture at all:
    a whole JSON document (another tool's) that names neither of ``CAPTURE_MARKS``. A
    text that is not whole JSON may be a broken capture: it is read, to be reported."""
    if not (source.found and source.line is None and source.path.suffix.lower() == ".json"):
        return False
    if any(mark in text for mark in CAPTURE_MARKS):
        return False
    import json

    try:
        json.loads(text)
    except (ValueError, RecursionError):  # not whole JSON, or nested past the parser
        return False
    return True


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"byte {error.start}", "not UTF-8 text") from None


def _imported(source: Source, name: str) -> list[Job]:
    """A toolchain's file as the captures ``tilefit import NAME`` makes of it."""
    from tilefit.formats.save import capture_text
    from tilefit.toolchains import read

    try:
        imported = read(name, [str(source.path)]).imported
    except InputError as error:
        raise error.located(source.key) from None
    if len(imported) == 1:
        capture = imported[0].capture
        return [Job(source.key, capture.name, f"{capture.name}.json", capture_text(capture))]
    return [
        Job(
            f"{source.key}#{item.capture.name}",
            item.capture.name,
            f"{item.capture.name}.json",
            capture_text(item.capture),
        )
        for item in imported
    ]
