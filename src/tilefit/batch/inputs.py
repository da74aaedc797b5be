"""Batch inputs: capture files, folders of them and ``.jsonl`` bundles, as sources.

A source is one capture's origin: a file, or one line of a bundle. Its key
(the file's absolute path, or ``PATH:LINE``) identifies its result row, so a
resumed run with the same inputs skips exactly what is recorded. Folders are
searched recursively for ``.json`` captures, ``.jsonl`` bundles and XLA dumps
(a module's ``*-buffer-assignment.txt``, imported as ``tilefit import xla``
would; hidden entries skipped); a minimalloc ``.csv`` is read only when named.

Reading a source's text happens later, one at a time (``load``), so a broken
file or line becomes an error row, not the end of the run.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tilefit.batch.bundle import BUNDLE_SUFFIX, bundle_lines, read_line
from tilefit.formats.xla.files import ASSIGNMENT_SUFFIX
from tilefit.model.errors import InputError

FOLDER_SUFFIXES = (".json", BUNDLE_SUFFIX)


@dataclass(frozen=True, slots=True)
class Source:
    """Where one capture comes from."""

    key: str  # the file's absolute path, or PATH:LINE for a bundle line
    path: Path
    line: int | None = None  # 1-based line of a bundle
    offset: int = 0  # byte offset of that line

    @property
    def xla(self) -> bool:
        """An XLA module's buffer assignment, imported when read."""
        return self.path.name.endswith(ASSIGNMENT_SUFFIX)

    @property
    def default_name(self) -> str:
        """The name when the capture gives none, or cannot be read."""
        if self.xla:
            return self.path.name[: -len(ASSIGNMENT_SUFFIX)]
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


def _sources(path: Path) -> Iterator[Source]:
    if path.is_dir():
        for child in sorted(_files(path)):
            yield from _sources(child)
    elif path.suffix.lower() == BUNDLE_SUFFIX:
        where = path.resolve()
        for line, offset in bundle_lines(where):
            yield Source(f"{where}:{line}", where, line, offset)
    else:
        where = path.resolve()
        yield Source(str(where), where)


def _files(folder: Path) -> Iterator[Path]:
    for child in folder.rglob("*"):
        hidden = any(part.startswith(".") for part in child.relative_to(folder).parts)
        wanted = child.suffix.lower() in FOLDER_SUFFIXES or child.name.endswith(ASSIGNMENT_SUFFIX)
        if not hidden and child.is_file() and wanted:
            yield child


def load(source: Source) -> Job:
    """Read a source's text; InputError (located) when it cannot be read."""
    if source.xla:
        return _imported(source)
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
    return Job(source.key, source.default_name, source.path.name, text)


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"byte {error.start}", "not UTF-8 text") from None


def _imported(source: Source) -> Job:
    """An XLA module's one temp allocation as a capture's text."""
    from tilefit.formats.save import capture_text
    from tilefit.formats.xla import import_module
    from tilefit.formats.xla.files import module_of

    imported = import_module(module_of(source.path))
    if len(imported) != 1:
        raise InputError(
            "",
            f"{len(imported)} preallocated temp allocations, not one: "
            "tilefit import xla -o DIR writes one capture for each, to batch instead",
            source.key,
        )
    capture = imported[0].capture
    return Job(source.key, capture.name, f"{capture.name}.json", capture_text(capture))
