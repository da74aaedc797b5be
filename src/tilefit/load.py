"""Reading captures and placements, enforcing every rule of capture-v1.

Every error is an InputError naming the place (a JSON path such as
``requests[12].end``, or a CSV line) and the rule it breaks.
"""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any, NoReturn

from tilefit.capture import (
    DEFAULT_CLASS,
    DEFAULT_PRODUCTION,
    FORMAT,
    VERSION,
    Capture,
    Conflict,
    Memory,
    Range,
    Request,
    Sequence,
    sequence_base,
)
from tilefit.errors import InputError
from tilefit.placement import PLACEMENT_FORMAT, Placement

_TOP_KEYS = {
    "format",
    "version",
    "name",
    "tile",
    "horizon",
    "memory",
    "requests",
    "sequences",
    "conflicts",
    "production",
    "observed",
}
_MEMORY_KEYS = {"size", "elements", "interleaved_offset", "ranges"}
_RANGE_KEYS = {"start", "end", "name", "classes"}
_REQUEST_KEYS = {"id", "size", "alignment", "start", "end", "class", "interleaved", "label"}
_SEQUENCE_KEYS = {"id", "members", "repeat"}
_OBSERVED_KEYS = {"failed"}
_PLACEMENT_KEYS = {"format", "version", "capture", "offsets"}


def _fail(place: str, rule: str) -> NoReturn:
    raise InputError(place, rule)


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number with a fraction"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _int(value: object, place: str) -> int:
    if type(value) is not int:
        _fail(place, f"must be an integer, got {_type_name(value)}")
    return value


def _str(value: object, place: str) -> str:
    if not isinstance(value, str):
        _fail(place, f"must be a string, got {_type_name(value)}")
    return value


def _list(value: object, place: str) -> list[Any]:
    if not isinstance(value, list):
        _fail(place, f"must be a list, got {_type_name(value)}")
    return value


def _object(
    value: object, place: str, allowed: set[str], required: tuple[str, ...]
) -> dict[str, Any]:
    if not isinstance(value, dict):
        _fail(place, f"must be an object, got {_type_name(value)}")
    if not allowed.issuperset(value):
        unknown = sorted(set(value) - allowed)[0]
        _fail(_join(place, unknown), f"unknown key (allowed: {', '.join(sorted(allowed))})")
    for key in required:
        if key not in value:
            _fail(_join(place, key), "required key is missing")
    return value


def _join(place: str, key: str) -> str:
    return f"{place}.{key}" if place else key


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def parse_json(text: str) -> Any:
    """Decode JSON text; malformed text or a repeated key is an InputError with its position."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as error:
        _fail(f"line {error.lineno} column {error.colno}", f"malformed JSON: {error.msg}")
    except _DuplicateKey as error:
        _fail("", f"malformed JSON: key {error.key!r} appears twice in one object")
    except RecursionError:
        _fail("", "malformed JSON: nested too deeply")


# --------------------------------------------------------------------------- capture


def capture_from_json(obj: object, default_name: str = "capture") -> Capture:
    """Build a Capture from decoded JSON, enforcing every rule of the format."""
    top = _object(obj, "", _TOP_KEYS, ("format", "version", "horizon", "memory", "requests"))
    if top["format"] != FORMAT:
        _fail("format", f'must be "{FORMAT}"')
    if type(top["version"]) is not int or top["version"] != VERSION:
        _fail("version", f"must be {VERSION} (this tilefit reads capture version {VERSION})")
    name = _str(top["name"], "name") if "name" in top else default_name
    tile = None
    if "tile" in top:
        tile = _int(top["tile"], "tile")
        if tile < 0:
            _fail("tile", "must be >= 0")
    horizon = _int(top["horizon"], "horizon")
    if horizon <= 0:
        _fail("horizon", "must be > 0")
    memory = _memory(top["memory"])
    requests = _requests(top["requests"], horizon)
    ids = {r.id for r in requests}
    sequences = _sequences(top.get("sequences", []), requests, ids)
    seq_members = {s.id: set(s.members) for s in sequences}
    conflicts = _conflicts(top.get("conflicts", []), ids, seq_members)
    production = _production(top["production"]) if "production" in top else DEFAULT_PRODUCTION
    observed = None
    if "observed" in top:
        obs = _object(top["observed"], "observed", _OBSERVED_KEYS, ("failed",))
        observed = _str(obs["failed"], "observed.failed")
        if observed not in ids and observed not in seq_members:
            _fail("observed.failed", f"unknown id {observed!r}")
    return Capture(
        name=name,
        horizon=horizon,
        memory=memory,
        requests=requests,
        sequences=sequences,
        conflicts=conflicts,
        production=production,
        observed_failed=observed,
        tile=tile,
    )


def _memory(value: object) -> Memory:
    mem = _object(value, "memory", _MEMORY_KEYS, ("size", "ranges"))
    size = _int(mem["size"], "memory.size")
    if size <= 0:
        _fail("memory.size", "must be > 0")
    elements: tuple[int, ...] = (0,)
    if "elements" in mem:
        raw = _list(mem["elements"], "memory.elements")
        if not raw:
            _fail("memory.elements", "must list at least one element start (the first is 0)")
        elements = tuple(_int(e, f"memory.elements[{k}]") for k, e in enumerate(raw))
        if elements[0] != 0:
            _fail("memory.elements[0]", "the first element must start at 0")
        for k in range(1, len(elements)):
            if elements[k] <= elements[k - 1]:
                _fail(f"memory.elements[{k}]", "element starts must be strictly ascending")
        if elements[-1] >= size:
            _fail(f"memory.elements[{len(elements) - 1}]", "must be < memory.size")
    interleaved = None
    if "interleaved_offset" in mem:
        interleaved = _int(mem["interleaved_offset"], "memory.interleaved_offset")
        if not 0 <= interleaved <= size:
            _fail("memory.interleaved_offset", f"must be in [0, {size}] (memory.size)")
    raw_ranges = _list(mem["ranges"], "memory.ranges")
    if not raw_ranges:
        _fail("memory.ranges", "must list at least one available range")
    ranges = tuple(_range(r, f"memory.ranges[{k}]", size) for k, r in enumerate(raw_ranges))
    order = sorted(range(len(ranges)), key=lambda k: ranges[k].start)
    for prev, cur in pairwise(order):
        if ranges[cur].start < ranges[prev].end:
            first, second = sorted((prev, cur))
            _fail(
                f"memory.ranges[{second}]",
                f"overlaps memory.ranges[{first}]: ranges must be pairwise disjoint",
            )
    return Memory(size=size, ranges=ranges, elements=elements, interleaved_offset=interleaved)


def _range(value: object, place: str, size: int) -> Range:
    r = _object(value, place, _RANGE_KEYS, ("start", "end"))
    start = _int(r["start"], f"{place}.start")
    end = _int(r["end"], f"{place}.end")
    if start < 0:
        _fail(f"{place}.start", "must be >= 0")
    if end <= start:
        _fail(f"{place}.end", f"must be > start ({start})")
    if end > size:
        _fail(f"{place}.end", f"lies beyond the memory: must be <= memory.size ({size})")
    name = _str(r["name"], f"{place}.name") if "name" in r else None
    classes = None
    if "classes" in r:
        raw = _list(r["classes"], f"{place}.classes")
        if not raw:
            _fail(f"{place}.classes", "must list at least one class (omit it to admit every class)")
        classes = tuple(_str(c, f"{place}.classes[{k}]") for k, c in enumerate(raw))
    return Range(start=start, end=end, name=name, classes=classes)


def _requests(value: object, horizon: int) -> tuple[Request, ...]:
    raw = _list(value, "requests")
    out: list[Request] = []
    seen: set[str] = set()
    for k, item in enumerate(raw):
        place = f"requests[{k}]"
        # Fast path for the common well-formed case; _object explains any failure.
        if type(item) is not dict or not _REQUEST_KEYS.issuperset(item):
            _object(item, place, _REQUEST_KEYS, ())
        for key in ("id", "size", "start", "end"):
            if key not in item:
                _fail(f"{place}.{key}", "required key is missing")
        ident = _str(item["id"], f"{place}.id")
        if not ident:
            _fail(f"{place}.id", "must not be empty")
        if ident in seen:
            _fail(f"{place}.id", f"duplicate id {ident!r}: ids must be unique")
        seen.add(ident)
        size = _int(item["size"], f"{place}.size")
        if size <= 0:
            _fail(f"{place}.size", "must be > 0")
        start = _int(item["start"], f"{place}.start")
        end = _int(item["end"], f"{place}.end")
        if start < 0:
            _fail(f"{place}.start", "must be >= 0")
        if end <= start:
            _fail(f"{place}.end", f"must be > start ({start})")
        if end > horizon:
            _fail(f"{place}.end", f"lies beyond the horizon ({horizon})")
        alignment = 1
        if "alignment" in item:
            alignment = _int(item["alignment"], f"{place}.alignment")
            if alignment < 1:
                _fail(f"{place}.alignment", "must be >= 1")
        cls = _str(item["class"], f"{place}.class") if "class" in item else DEFAULT_CLASS
        interleaved = False
        if "interleaved" in item:
            interleaved = item["interleaved"]
            if not isinstance(interleaved, bool):
                _fail(
                    f"{place}.interleaved", f"must be true or false, got {_type_name(interleaved)}"
                )
        label = _str(item["label"], f"{place}.label") if "label" in item else None
        out.append(Request(ident, size, start, end, alignment, cls, interleaved, label))
    return tuple(out)


def _sequences(value: object, requests: tuple[Request, ...], ids: set[str]) -> tuple[Sequence, ...]:
    raw = _list(value, "sequences")
    by_id = {r.id: r for r in requests}
    owner: dict[str, int] = {}
    seq_ids: set[str] = set()
    out: list[Sequence] = []
    for k, item in enumerate(raw):
        place = f"sequences[{k}]"
        s = _object(item, place, _SEQUENCE_KEYS, ("id", "members"))
        ident = _str(s["id"], f"{place}.id")
        if not ident:
            _fail(f"{place}.id", "must not be empty")
        if ident in ids or ident in seq_ids:
            _fail(
                f"{place}.id",
                f"duplicate id {ident!r}: request and sequence ids share one namespace",
            )
        seq_ids.add(ident)
        members_raw = _list(s["members"], f"{place}.members")
        if not members_raw:
            _fail(f"{place}.members", "must list at least one request id")
        members: list[str] = []
        for j, m in enumerate(members_raw):
            mplace = f"{place}.members[{j}]"
            member = _str(m, mplace)
            if member not in by_id:
                _fail(mplace, f"unknown request id {member!r}")
            if member in owner:
                other = owner[member]
                where = "this sequence" if other == k else f"sequences[{other}]"
                _fail(mplace, f"request {member!r} is already a member of {where}")
            owner[member] = k
            members.append(member)
        repeat = _str(s["repeat"], f"{place}.repeat") if "repeat" in s else None
        reqs = [by_id[m] for m in members]
        if sequence_base(tuple(r.size for r in reqs), tuple(r.alignment for r in reqs)) is None:
            _fail(
                f"{place}.members",
                "no base offset aligns every member at once (sizes "
                + ", ".join(f"{r.id}={r.size}/align {r.alignment}" for r in reqs)
                + ")",
            )
        out.append(Sequence(ident, tuple(members), repeat))
    return tuple(out)


def _conflicts(
    value: object, ids: set[str], seq_members: dict[str, set[str]]
) -> tuple[Conflict, ...]:
    raw = _list(value, "conflicts")
    out: list[Conflict] = []
    for k, item in enumerate(raw):
        place = f"conflicts[{k}]"
        pair = _list(item, place)
        if len(pair) != 2:
            _fail(place, f"must be a pair [a, b] of ids, got {len(pair)} items")
        a = _str(pair[0], f"{place}[0]")
        b = _str(pair[1], f"{place}[1]")
        for j, ident in enumerate((a, b)):
            if ident not in ids and ident not in seq_members:
                _fail(f"{place}[{j}]", f"unknown id {ident!r}")
        if a == b:
            _fail(place, f"a request cannot conflict with itself ({a!r})")
        side_a = seq_members.get(a, {a})
        side_b = seq_members.get(b, {b})
        if side_a & side_b:
            _fail(
                place,
                f"self-conflict: {a!r} and {b!r} share request {sorted(side_a & side_b)[0]!r}",
            )
        out.append(Conflict(a, b))
    return tuple(out)


def _production(value: object) -> tuple[str, ...]:
    from tilefit.strategy import parse_strategy

    raw = _list(value, "production")
    if not raw:
        _fail("production", "must list at least one strategy")
    names: list[str] = []
    for k, item in enumerate(raw):
        name = _str(item, f"production[{k}]")
        try:
            parse_strategy(name)
        except ValueError as error:
            _fail(f"production[{k}]", str(error))
        names.append(name)
    return tuple(names)


# --------------------------------------------------------------------------- files


def read_capture(path: str | Path, capacity: int | None = None) -> Capture:
    """Read a capture: a JSON capture, or a minimalloc CSV (capacity from the name or argument)."""
    path = Path(path)
    try:
        if path.suffix.lower() == ".csv":
            from tilefit.minimalloc import capture_from_csv

            return capture_from_csv(_read_text(path), path.name, capacity)
        if capacity is not None:
            raise InputError("--capacity", "applies only to a minimalloc CSV")
        return capture_from_json(parse_json(_read_text(path)), default_name=path.stem)
    except InputError as error:
        raise error.located(str(path)) from None


def read_placement(path: str | Path) -> Placement:
    """Read a placement: the JSON placement format, or a minimalloc CSV with an offset column."""
    path = Path(path)
    try:
        if path.suffix.lower() == ".csv":
            from tilefit.minimalloc import placement_from_csv

            return placement_from_csv(_read_text(path), path.name)
        return placement_from_json(parse_json(_read_text(path)))
    except InputError as error:
        raise error.located(str(path)) from None


def placement_from_json(obj: object) -> Placement:
    top = _object(obj, "", _PLACEMENT_KEYS, ("format", "version", "offsets"))
    if top["format"] != PLACEMENT_FORMAT:
        _fail("format", f'must be "{PLACEMENT_FORMAT}"')
    if type(top["version"]) is not int or top["version"] != 1:
        _fail("version", "must be 1")
    name = _str(top["capture"], "capture") if "capture" in top else ""
    raw = top["offsets"]
    if not isinstance(raw, dict):
        _fail("offsets", f"must be an object of id: offset, got {_type_name(raw)}")
    offsets = {ident: _int(off, f"offsets.{ident}") for ident, off in raw.items()}
    return Placement(capture=name, offsets=offsets)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"byte {error.start}", "not UTF-8 text") from None
    except FileNotFoundError:
        raise InputError("", "no such file") from None
    except IsADirectoryError:
        raise InputError("", "is a folder, not a file") from None
    except OSError as error:
        raise InputError("", f"cannot read: {error.strerror}") from None
