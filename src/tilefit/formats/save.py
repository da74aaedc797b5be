"""Writing captures and placements: the canonical JSON form.

Optional keys are written only when they differ from their default, so that
loading what was written gives back an equal capture, and writing a loaded
capture gives the same bytes every time.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from tilefit.model.capture import DEFAULT_CLASS, DEFAULT_PRODUCTION, FORMAT, VERSION, Capture
from tilefit.model.placement import Placement


def capture_to_json(capture: Capture) -> dict[str, Any]:
    memory = capture.memory
    mem: dict[str, Any] = {"size": memory.size}
    if memory.elements != (0,):
        mem["elements"] = list(memory.elements)
    if memory.interleaved_offset is not None:
        mem["interleaved_offset"] = memory.interleaved_offset
    ranges = []
    for r in memory.ranges:
        item: dict[str, Any] = {"start": r.start, "end": r.end}
        if r.name is not None:
            item["name"] = r.name
        if r.classes is not None:
            item["classes"] = list(r.classes)
        ranges.append(item)
    mem["ranges"] = ranges
    out: dict[str, Any] = {"format": FORMAT, "version": VERSION, "name": capture.name}
    if capture.tile is not None:
        out["tile"] = capture.tile
    out["horizon"] = capture.horizon
    if capture.period is not None:
        out["period"] = capture.period
    out["memory"] = mem
    requests = []
    for q in capture.requests:
        req: dict[str, Any] = {"id": q.id, "size": q.size}
        if q.alignment != 1:
            req["alignment"] = q.alignment
        req["start"] = q.start
        req["end"] = q.end
        if q.cls != DEFAULT_CLASS:
            req["class"] = q.cls
        if q.interleaved:
            req["interleaved"] = True
        if q.label is not None:
            req["label"] = q.label
        if q.source is not None:
            req["source"] = q.source
        if q.name is not None:
            req["name"] = q.name
        requests.append(req)
    out["requests"] = requests
    if capture.sequences:
        seqs = []
        for s in capture.sequences:
            seq: dict[str, Any] = {"id": s.id, "members": list(s.members)}
            if s.repeat is not None:
                seq["repeat"] = s.repeat
            seqs.append(seq)
        out["sequences"] = seqs
    if capture.conflicts:
        out["conflicts"] = [[c.a, c.b] for c in capture.conflicts]
    if capture.production != DEFAULT_PRODUCTION:
        out["production"] = list(capture.production)
    if capture.observed_failed is not None:
        out["observed"] = {"failed": capture.observed_failed}
        if capture.observed_offsets is not None:
            out["observed"]["offsets"] = dict(capture.observed_offsets)
    if capture.origin is not None:
        origin: dict[str, Any] = {"tool": capture.origin.tool, "heap": capture.origin.heap}
        if capture.origin.source is not None:
            origin["source"] = capture.origin.source
        if capture.origin.plan != "heap":
            origin["plan"] = capture.origin.plan
        if capture.origin.placed is not None:
            origin["placed"] = capture.origin.placed
        out["origin"] = origin
    if capture.allocator is not None:
        from tilefit.formats.allocator import allocator_to_json

        out["allocator"] = allocator_to_json(capture.allocator)
    return out


def dumps(obj: Any) -> str:
    """Compact-but-readable JSON: one request per line keeps diffs of captures small."""
    from tilefit.formats.jsontext import json_text  # a placement's offsets in one join

    return json_text(obj, indent=1, ensure_ascii=False) + "\n"


def capture_text(capture: Capture) -> str:
    return _one_item_per_line(capture_to_json(capture))


def _one_item_per_line(obj: dict[str, Any]) -> str:
    # A capture can hold 100,000 requests: an object per line reads well and diffs well.
    lines = ["{"]
    items = list(obj.items())
    for k, (key, value) in enumerate(items):
        comma = "," if k < len(items) - 1 else ""
        if isinstance(value, list) and value and isinstance(value[0], dict | list):
            lines += _items_lines(key, value, comma, "  ")
        elif key == "allocator" and isinstance(value, dict):
            # the allocator's inputs: a key a line, its lists an item a line
            lines.append(f"  {json.dumps(key)}: {{")
            inner = list(value.items())
            for j, (name, part) in enumerate(inner):
                sep = "," if j < len(inner) - 1 else ""
                if isinstance(part, list) and part and isinstance(part[0], dict):
                    lines += _items_lines(name, part, sep, "    ")
                else:
                    lines.append(
                        f"    {json.dumps(name)}: {json.dumps(part, ensure_ascii=False)}{sep}"
                    )
            lines.append(f"  }}{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _items_lines(key: str, items: list[Any], comma: str, indent: str) -> list[str]:
    lines = [f"{indent}{json.dumps(key)}: ["]
    for j, item in enumerate(items):
        inner = "," if j < len(items) - 1 else ""
        lines.append(f"{indent}  {json.dumps(item, ensure_ascii=False)}{inner}")
    lines.append(f"{indent}]{comma}")
    return lines


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path``, renamed to it only when the block completes.

    An error or Ctrl-C (KeyboardInterrupt) part-way leaves no partial file: the
    temporary one is removed and ``path`` is untouched.
    """
    final = Path(path)
    if not final.name:  # "", "." or "/": a folder, and no name to put a temporary beside
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(final))
    temp = final.with_name(f".{final.name}.{os.getpid()}.partial")
    try:
        yield temp
        os.replace(temp, final)
    except BaseException as error:
        with suppress(OSError):
            temp.unlink()
        if isinstance(error, OSError) and error.filename in (temp, str(temp)):
            # The user named ``path``, not our temporary file: say what they gave.
            error.filename = str(path)
        raise


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all."""
    with atomic_path(path) as temp:
        temp.write_text(text, encoding="utf-8")


def write_capture(capture: Capture, path: str | Path) -> None:
    write_text_atomic(path, capture_text(capture))


def placement_text(placement: Placement) -> str:
    return dumps(placement.to_json())


def write_placement(placement: Placement, path: str | Path) -> None:
    write_text_atomic(path, placement_text(placement))
