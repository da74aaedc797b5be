"""The ``.jsonl`` bundle: many captures in one file, one capture per line.

Each line is a complete capture object (the same JSON as a capture file,
without the line breaks); blank lines are skipped. A model's 1,472 tiles
travel as one file and a malformed line spoils only itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from tilefit.formats.save import atomic_path, capture_to_json, write_capture
from tilefit.model.capture import Capture

BUNDLE_SUFFIX = ".jsonl"


def bundle_line(capture: Capture) -> str:
    """One capture as one line of JSON, without the newline."""
    return json.dumps(capture_to_json(capture), ensure_ascii=False, separators=(",", ":"))


def write_bundle(captures: Iterable[Capture], path: str | Path) -> int:
    """Write captures as a ``.jsonl`` bundle; returns how many."""
    count = 0
    with atomic_path(path) as temp, temp.open("w", encoding="utf-8", newline="\n") as out:
        for capture in captures:
            out.write(bundle_line(capture))
            out.write("\n")
            count += 1
    return count


def write_folder(captures: Iterable[Capture], folder: str | Path) -> int:
    """Write each capture as ``NAME.json`` in ``folder`` (created if missing); returns how many."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    count = 0
    for capture in captures:
        if not capture.name or "/" in capture.name or "\\" in capture.name:
            raise ValueError(f"capture name {capture.name!r} cannot be a file name")
        write_capture(capture, root / f"{capture.name}.json")
        count += 1
    return count


def bundle_lines(path: Path) -> Iterator[tuple[int, int]]:
    """(line number from 1, byte offset) of every non-blank line of a bundle."""
    offset = 0
    with path.open("rb") as data:
        for number, line in enumerate(data, start=1):
            if line.strip():
                yield number, offset
            offset += len(line)


def read_line(path: Path, offset: int) -> bytes:
    """The bundle line starting at ``offset``."""
    with path.open("rb") as data:
        data.seek(offset)
        return data.readline()
