"""Google MiniMalloc's CSV format: ``id,lower,upper,size[,alignment][,offset]``.

Lifetimes are half-open ``[lower, upper)``; a column ``end`` instead of
``upper`` holds an inclusive end. An imported capture has one range
``[0, capacity)``, horizon = the latest upper, class ``default``.
"""

from __future__ import annotations

import csv
import io
import re
from itertools import repeat
from typing import Any

from tilefit.model.capture import Capture, Memory, Range, Request
from tilefit.model.collector import collector_paused
from tilefit.model.errors import INT_LIMIT, INT_LIMIT_TEXT, InputError
from tilefit.model.placement import Placement
from tilefit.model.words import counted

_CAPACITY_NAME = re.compile(r"^(?P<stem>.+)\.(?P<capacity>\d+)\.csv$", re.IGNORECASE)
_COLUMNS = {"id", "lower", "upper", "end", "size", "alignment", "offset"}


def capacity_from_name(file_name: str) -> int | None:
    """The capacity in a file name of the form ``NAME.CAPACITY.csv``."""
    match = _CAPACITY_NAME.match(file_name)
    return int(match["capacity"]) if match else None


def _stem(file_name: str) -> str:
    match = _CAPACITY_NAME.match(file_name)
    if match:
        return match["stem"]
    return file_name[:-4] if file_name.lower().endswith(".csv") else file_name


def _rows(text: str, need_offset: bool) -> tuple[list[str], list[tuple[int, list[str]]]]:
    reader = csv.reader(io.StringIO(text))
    try:
        return _read_rows(reader, need_offset)
    except csv.Error as error:  # a field past the csv module's limit, a NUL byte, ...
        raise InputError(f"line {max(reader.line_num, 1)}", f"not CSV: {error}") from None


def _read_rows(reader: Any, need_offset: bool) -> tuple[list[str], list[tuple[int, list[str]]]]:
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise InputError("line 1", "empty CSV: expected a header id,lower,upper,size") from None
    for name in header:
        if name not in _COLUMNS:
            raise InputError(
                "line 1", f"unknown column {name!r} (known: {', '.join(sorted(_COLUMNS))})"
            )
    if len(set(header)) != len(header):
        raise InputError("line 1", "a column appears twice")
    required = ["id", "lower", "size"] + (["offset"] if need_offset else [])
    for name in required:
        if name not in header:
            raise InputError("line 1", f"missing column {name!r}")
    if ("upper" in header) == ("end" in header):
        raise InputError(
            "line 1", "needs exactly one of the columns 'upper' (exclusive) or 'end' (inclusive)"
        )
    rows: list[tuple[int, list[str]]] = []
    for row in reader:
        line = reader.line_num
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise InputError(
                f"line {line}", f"has {counted(len(row), 'cell')}, the header has {len(header)}"
            )
        rows.append((line, [cell.strip() for cell in row]))
    return header, rows


def _cell_int(cells: dict[str, str], column: str, line: int) -> int:
    text = cells[column]
    digits = text[1:] if text[:1] in "+-" else text
    if not (digits.isascii() and digits.isdigit()):
        raise InputError(f"line {line}", f"column {column!r}: {text!r} is not an integer")
    if len(digits) > 20 or not -INT_LIMIT < int(text) < INT_LIMIT:
        raise InputError(
            f"line {line}", f"column {column!r}: must be below {INT_LIMIT_TEXT} in magnitude"
        )
    return int(text)


def capture_from_csv(text: str, file_name: str, capacity: int | None = None) -> Capture:
    """The capture a CSV describes; its rows are checked before a missing capacity is named."""
    with collector_paused():
        requests = _plain_requests(text)
        if requests is None:  # anything out of the ordinary: read row by row, each rule named
            header, rows = _rows(text, need_offset=False)
            requests = _requests(header, rows)
    if capacity is None:
        capacity = capacity_from_name(file_name)
        if capacity is None:
            raise InputError(
                "",
                "no capacity: pass --capacity N or name the file NAME.CAPACITY.csv",
            )
    if capacity <= 0:
        raise InputError("--capacity", "must be > 0")
    if capacity >= INT_LIMIT:
        raise InputError("--capacity", f"must be below {INT_LIMIT_TEXT}")
    horizon = max((r.end for r in requests), default=1)
    memory = Memory(size=capacity, ranges=(Range(0, capacity),))
    return Capture(name=_stem(file_name), horizon=horizon, memory=memory, requests=requests)


_PLAIN_HEADERS = (["id", "lower", "upper", "size"], ["id", "lower", "upper", "size", "alignment"])
_DIGITS = 18  # a plain integer cell: far below INT_LIMIT


def _plain_requests(text: str) -> tuple[Request, ...] | None:
    """The requests of a CSV as compilers write it (no quotes, no blank line, the usual
    columns, plain non-negative integers, each rule kept), read column by column: a
    million rows in a few seconds, where row by row took several times that. None
    for anything else, which the row-by-row reader reads or refuses, naming the line."""
    if '"' in text:
        return None
    split = _columns(text)
    if split is None:
        return None
    ids, *cells = split
    if not all(ids) or len(set(ids)) != len(ids):
        return None
    if not all(map(_plain_integers, cells)):
        return None
    columns = [list(map(int, column)) for column in cells]
    lower, upper, size = columns[:3]
    alignment = columns[3] if len(columns) > 3 else [1] * len(ids)
    if not all(u > lo for lo, u in zip(lower, upper, strict=True)):
        return None
    if not all(size) or not all(alignment):  # sizes > 0, alignments >= 1
        return None
    return tuple(map(Request, ids, size, lower, upper, alignment))


# Printable ASCII and single line ends only: nothing a cell's strip() would remove.
_PRINTABLE = re.compile(r"[^\x21-\x7e\n]|\n\n")


def _columns(text: str) -> list[list[str]] | None:
    """The cells column by column, stripped, when the header is a plain one and every line
    has its number of cells; None otherwise."""
    if _PRINTABLE.search(text) is None:
        return _columns_at_once(text)
    return _columns_by_line(text)


def _columns_by_line(text: str) -> list[list[str]] | None:
    """``_columns`` of any text, line by line."""
    lines = text.splitlines()
    if any(len(line) > csv.field_size_limit() for line in lines):
        return None  # a field past the csv module's limit: the row reader refuses it
    header = [name.strip() for name in lines[0].split(",")] if lines else []
    if header not in _PLAIN_HEADERS:
        return None
    rows = [line.split(",") for line in lines[1:]]
    if any(len(row) != len(header) for row in rows):
        return None  # a blank line, a cell too many or too few
    return [[row[k].strip() for row in rows] for k in range(len(header))]


def _columns_at_once(text: str) -> list[list[str]] | None:
    """``_columns`` of a text with nothing to strip and no blank line: split once, at every
    comma and line end, after counting each line's commas."""
    body = text[:-1] if text.endswith("\n") else text
    lines = body.split("\n")
    if max(map(len, lines)) > csv.field_size_limit():
        return None
    header = lines[0].split(",")
    if header not in _PLAIN_HEADERS or set(map(str.count, lines, repeat(","))) != {len(header) - 1}:
        return None
    cells = body.replace("\n", ",").split(",")[len(header) :]
    return [cells[k :: len(header)] for k in range(len(header))]


def _plain_integers(cells: list[str]) -> bool:
    """Whether every cell is a plain non-negative integer of at most ``_DIGITS`` digits."""
    if not cells:
        return True
    joined = "".join(cells)
    return (
        joined.isascii()
        and joined.isdigit()
        and min(map(len, cells)) > 0
        and max(map(len, cells)) <= _DIGITS
    )


def _requests(header: list[str], rows: list[tuple[int, list[str]]]) -> tuple[Request, ...]:
    inclusive = "end" in header
    requests: list[Request] = []
    seen: set[str] = set()
    for line, cells_list in rows:
        cells = dict(zip(header, cells_list, strict=True))
        ident = cells["id"]
        if not ident:
            raise InputError(f"line {line}", "column 'id' is empty")
        if ident in seen:
            raise InputError(f"line {line}", f"duplicate id {ident!r}")
        seen.add(ident)
        lower = _cell_int(cells, "lower", line)
        upper = _cell_int(cells, "end" if inclusive else "upper", line) + (1 if inclusive else 0)
        if upper >= INT_LIMIT:
            raise InputError(f"line {line}", f"column 'end': must be below {INT_LIMIT_TEXT} - 1")
        size = _cell_int(cells, "size", line)
        alignment = _cell_int(cells, "alignment", line) if "alignment" in cells else 1
        if lower < 0:
            raise InputError(f"line {line}", "column 'lower' must be >= 0")
        if upper <= lower:
            column = "'end' must be >= 'lower'" if inclusive else "'upper' must be > 'lower'"
            raise InputError(f"line {line}", f"column {column}")
        if size <= 0:
            raise InputError(f"line {line}", "column 'size' must be > 0")
        if alignment < 1:
            raise InputError(f"line {line}", "column 'alignment' must be >= 1")
        requests.append(Request(ident, size, lower, upper, alignment))
    return tuple(requests)


def placement_from_csv(text: str, file_name: str) -> Placement:
    header, rows = _rows(text, need_offset=True)
    offsets: dict[str, int] = {}
    for line, cells_list in rows:
        cells = dict(zip(header, cells_list, strict=True))
        ident = cells["id"]
        if ident in offsets:
            raise InputError(f"line {line}", f"duplicate id {ident!r}")
        offsets[ident] = _cell_int(cells, "offset", line)
    return Placement(capture=_stem(file_name), offsets=offsets)


def capture_to_csv(capture: Capture, placement: Placement | None = None) -> str:
    """The capture (and optionally its offsets) as minimalloc CSV.

    The CSV knows only sizes, lifetimes, alignment and one capacity, so a capture
    with more constraints than that cannot be written without losing meaning.
    """
    lost = _what_csv_loses(capture)
    if lost:
        raise InputError("", f"cannot write minimalloc CSV without losing {lost}")
    with_alignment = any(r.alignment != 1 for r in capture.requests)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header = ["id", "lower", "upper", "size"]
    header += ["alignment"] if with_alignment else []
    header += ["offset"] if placement is not None else []
    writer.writerow(header)
    for r in capture.requests:
        row: list[object] = [r.id, r.start, r.end, r.size]
        if with_alignment:
            row.append(r.alignment)
        if placement is not None:
            row.append(placement.offsets[r.id])
        writer.writerow(row)
    return out.getvalue()


def _what_csv_loses(capture: Capture) -> str:
    memory = capture.memory
    wrapping = [r.id for r in capture.requests if r.wraps]
    if wrapping:
        return (
            f"its lifetimes that wrap around the period ({', '.join(wrapping[:3])}"
            + (", ..." if len(wrapping) > 3 else "")
            + "): the CSV's are linear"
        )
    if capture.sequences:
        return "its sequences"
    if capture.conflicts:
        return "its conflict edges"
    if memory.ranges != (Range(0, memory.size),):
        return "its address ranges (the CSV has one range [0, capacity))"
    if memory.elements != (0,) or memory.interleaved_offset is not None:
        return "its memory elements or interleaved region"
    if any(r.cls != "default" or r.interleaved or r.label for r in capture.requests):
        return "request classes, labels or the interleaved flag"
    return ""
