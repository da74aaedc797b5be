"""Reading captures and placements, enforcing every rule of capture-v1.

Every error is an InputError naming the place (a JSON path such as
``requests[12].end``, or a CSV line) and the rule it breaks.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from itertools import pairwise
from pathlib import Path

from tilefit.formats.foreign import refuse
from tilefit.formats.jsonread import (
    MoreAfterValue,
    as_int,
    as_list,
    as_object,
    as_str,
    fail,
    parse_json,
    type_name,
)
from tilefit.model.capture import (
    DEFAULT_CLASS,
    DEFAULT_PRODUCTION,
    FORMAT,
    VERSION,
    Capture,
    Conflict,
    Memory,
    Origin,
    Range,
    Request,
    Sequence,
    sequence_base,
)
from tilefit.model.errors import INT_LIMIT, INT_LIMIT_TEXT, InputError
from tilefit.model.placement import PLACEMENT_FORMAT, Placement
from tilefit.model.words import counted

_TOP_KEYS = {
    "format",
    "version",
    "name",
    "tile",
    "horizon",
    "period",
    "memory",
    "requests",
    "sequences",
    "conflicts",
    "production",
    "observed",
    "origin",
    "allocator",
}
_MEMORY_KEYS = {"size", "elements", "interleaved_offset", "ranges"}
_RANGE_KEYS = {"start", "end", "name", "classes"}
_REQUEST_KEYS = {
    "id",
    "size",
    "alignment",
    "start",
    "end",
    "class",
    "interleaved",
    "label",
    "source",
    "name",
}
_SEQUENCE_KEYS = {"id", "members", "repeat"}
_OBSERVED_KEYS = {"failed", "offsets"}
_ORIGIN_KEYS = {"tool", "heap", "source", "plan", "placed"}
_PLACEMENT_KEYS = {"format", "version", "capture", "offsets"}


# --------------------------------------------------------------------------- capture


def _output_of(obj: dict[str, object]) -> str | None:
    """The command whose ``--json`` this object is (every key its schema requires is
    here), or None: a user who feeds a result back gets told what it is."""
    from tilefit.schema import json_commands, output_schema

    for command in json_commands():
        required = output_schema(command)["$defs"][command].get("required", [])
        if len(required) >= 3 and set(required) <= set(obj):
            return command
    return None


def capture_from_json(obj: object, default_name: str = "capture") -> Capture:
    """Build a Capture from decoded JSON, enforcing every rule of the format."""
    if isinstance(obj, dict) and obj.get("format") == PLACEMENT_FORMAT:
        fail("format", f'"{PLACEMENT_FORMAT}": this is a placement, not a capture')
    if isinstance(obj, dict) and "format" not in obj and (command := _output_of(obj)):
        fail("", f"this is the --json of tilefit {command}, not a capture")
    top = as_object(obj, "", _TOP_KEYS, ("format", "version", "horizon", "memory", "requests"))
    if top["format"] != FORMAT:
        fail("format", f'must be "{FORMAT}"')
    if type(top["version"]) is not int or top["version"] != VERSION:
        fail("version", f"must be {VERSION} (this tilefit reads capture version {VERSION})")
    name = as_str(top["name"], "name") if "name" in top else default_name
    tile = None
    if "tile" in top:
        tile = as_int(top["tile"], "tile")
        if tile < 0:
            fail("tile", "must be >= 0")
    horizon = as_int(top["horizon"], "horizon")
    if horizon <= 0:
        fail("horizon", "must be > 0")
    period = None
    if "period" in top:
        period = as_int(top["period"], "period")
        if period != horizon:
            fail("period", f"must equal horizon ({horizon}): the circle's steps are the capture's")
    memory = _memory(top["memory"])
    requests = _requests(top["requests"], horizon, period is not None)
    ids = {r.id for r in requests}
    sequences = _sequences(top.get("sequences", []), requests, ids)
    seq_members = {s.id: set(s.members) for s in sequences}
    conflicts = _conflicts(top.get("conflicts", []), ids, seq_members)
    production = _production(top["production"]) if "production" in top else DEFAULT_PRODUCTION
    observed = None
    observed_offsets = None
    if "observed" in top:
        obs = as_object(top["observed"], "observed", _OBSERVED_KEYS, ("failed",))
        observed = as_str(obs["failed"], "observed.failed")
        if observed not in ids and observed not in seq_members:
            fail("observed.failed", f"unknown id {observed!r}")
        if "offsets" in obs:
            observed_offsets = _observed_offsets(obs["offsets"], ids, observed)
    origin = _origin(top["origin"], len(requests)) if "origin" in top else None
    capture = Capture(
        name=name,
        horizon=horizon,
        memory=memory,
        requests=requests,
        sequences=sequences,
        conflicts=conflicts,
        production=production,
        observed_failed=observed,
        observed_offsets=observed_offsets,
        tile=tile,
        origin=origin,
        period=period,
    )
    return _with_allocator(capture, top.get("allocator"))


def _with_allocator(capture: Capture, value: object) -> Capture:
    """The capture with its ``allocator`` inputs, which a production allocator named in
    ``production`` needs (``tilefit.formats.allocator``)."""
    if value is None and capture.production == DEFAULT_PRODUCTION:
        return capture  # nothing to check: the allocators' registry stays unloaded
    from dataclasses import replace

    from tilefit.engine.production import ALLOCATORS

    allocator = None
    if value is not None:
        from tilefit.formats.allocator import allocator_from_json

        allocator = allocator_from_json(value, capture)
    for k, name in enumerate(capture.production):
        if name in ALLOCATORS and (allocator is None or allocator.name != name):
            fail(
                f"production[{k}]",
                f"{name!r} is an allocator replayed from the capture's allocator "
                f'object: give one named "{name}" (docs/format.md)',
            )
    return capture if allocator is None else replace(capture, allocator=allocator)


def _observed_offsets(value: object, ids: set[str], failed: str) -> tuple[tuple[str, int], ...]:
    """Where the compiler placed what it placed before its failure: ``{id: offset}``."""
    if not isinstance(value, dict):
        fail("observed.offsets", f"must be an object, got {type_name(value)}")
    out = []
    for ident, offset in value.items():
        place = f"observed.offsets.{ident}"
        if ident not in ids:
            fail(place, f"unknown request id {ident!r}")
        if ident == failed:
            fail(place, "is the request the compiler failed on: it has no offset")
        number = as_int(offset, place)
        if number < 0:
            fail(place, "must be >= 0")
        out.append((ident, number))
    return tuple(out)


def _origin(value: object, requests: int) -> Origin:
    obj = as_object(value, "origin", _ORIGIN_KEYS, ("tool", "heap"))
    tool = as_str(obj["tool"], "origin.tool")
    if not tool:
        fail("origin.tool", "must not be empty")
    heap = as_int(obj["heap"], "origin.heap")
    if heap < 0:
        fail("origin.heap", "must be >= 0")
    source = as_str(obj["source"], "origin.source") if "source" in obj else None
    plan = as_str(obj["plan"], "origin.plan") if "plan" in obj else "heap"
    if not plan:
        fail("origin.plan", "must not be empty")
    placed = as_int(obj["placed"], "origin.placed") if "placed" in obj else None
    if placed is not None and not 0 <= placed < requests:
        fail("origin.placed", f"must be in [0, {requests}): the tool left some request unplaced")
    return Origin(tool, heap, source, plan, placed)


def _memory(value: object) -> Memory:
    mem = as_object(value, "memory", _MEMORY_KEYS, ("size", "ranges"))
    size = as_int(mem["size"], "memory.size")
    if size <= 0:
        fail("memory.size", "must be > 0")
    elements: tuple[int, ...] = (0,)
    if "elements" in mem:
        raw = as_list(mem["elements"], "memory.elements")
        if not raw:
            fail("memory.elements", "must list at least one element start (the first is 0)")
        elements = tuple(as_int(e, f"memory.elements[{k}]") for k, e in enumerate(raw))
        if elements[0] != 0:
            fail("memory.elements[0]", "the first element must start at 0")
        for k in range(1, len(elements)):
            if elements[k] <= elements[k - 1]:
                fail(f"memory.elements[{k}]", "element starts must be strictly ascending")
        if elements[-1] >= size:
            fail(f"memory.elements[{len(elements) - 1}]", "must be < memory.size")
    interleaved = None
    if "interleaved_offset" in mem:
        interleaved = as_int(mem["interleaved_offset"], "memory.interleaved_offset")
        if not 0 <= interleaved <= size:
            fail("memory.interleaved_offset", f"must be in [0, {size}] (memory.size)")
    raw_ranges = as_list(mem["ranges"], "memory.ranges")
    if not raw_ranges:
        fail("memory.ranges", "must list at least one available range")
    ranges = tuple(_range(r, f"memory.ranges[{k}]", size) for k, r in enumerate(raw_ranges))
    order = sorted(range(len(ranges)), key=lambda k: ranges[k].start)
    for prev, cur in pairwise(order):
        if ranges[cur].start < ranges[prev].end:
            first, second = sorted((prev, cur))
            fail(
                f"memory.ranges[{second}]",
                f"overlaps memory.ranges[{first}]: ranges must be pairwise disjoint",
            )
    return Memory(size=size, ranges=ranges, elements=elements, interleaved_offset=interleaved)


def _span(obj: Mapping[str, object], place: str, limit: int, beyond: str) -> tuple[int, int]:
    """``start`` and ``end`` of a half-open interval with ``0 <= start < end <= limit``."""
    start = as_int(obj["start"], f"{place}.start")
    end = as_int(obj["end"], f"{place}.end")
    if start < 0:
        fail(f"{place}.start", "must be >= 0")
    if end <= start:
        fail(f"{place}.end", f"must be > start ({start})")
    if end > limit:
        fail(f"{place}.end", beyond)
    return start, end


def _range(value: object, place: str, size: int) -> Range:
    r = as_object(value, place, _RANGE_KEYS, ("start", "end"))
    start, end = _span(r, place, size, f"lies beyond the memory: must be <= memory.size ({size})")
    name = as_str(r["name"], f"{place}.name") if "name" in r else None
    classes = None
    if "classes" in r:
        raw = as_list(r["classes"], f"{place}.classes")
        if not raw:
            fail(f"{place}.classes", "must list at least one class (omit it to admit every class)")
        classes = tuple(as_str(c, f"{place}.classes[{k}]") for k, c in enumerate(raw))
    return Range(start=start, end=end, name=name, classes=classes)


def _arc(obj: Mapping[str, object], place: str, period: int) -> tuple[int, int]:
    """``start`` and ``end`` of a lifetime on a circle of ``period`` steps: ``0 <= start <
    period``, ``0 < end <= period``, ``start != end`` (``start > end`` wraps)."""
    start = as_int(obj["start"], f"{place}.start")
    end = as_int(obj["end"], f"{place}.end")
    if not 0 <= start < period:
        fail(f"{place}.start", f"must be in [0, {period}) (the period)")
    if not 0 < end <= period:
        fail(f"{place}.end", f"must be in [1, {period}] (the period)")
    if end == start:
        fail(
            f"{place}.end",
            f"must differ from start ({start}): a request live at every step is start 0, "
            f"end {period}",
        )
    return start, end


def _requests(value: object, horizon: int, cyclic: bool = False) -> tuple[Request, ...]:
    raw = as_list(value, "requests")
    out: list[Request] = []
    seen: set[str] = set()
    for k, item in enumerate(raw):
        place = f"requests[{k}]"
        # Fast path for the common well-formed case; _object explains any failure.
        if type(item) is not dict or not _REQUEST_KEYS.issuperset(item):
            as_object(item, place, _REQUEST_KEYS, ())
        for key in ("id", "size", "start", "end"):
            if key not in item:
                fail(f"{place}.{key}", "required key is missing")
        ident = as_str(item["id"], f"{place}.id")
        if not ident:
            fail(f"{place}.id", "must not be empty")
        if ident in seen:
            fail(f"{place}.id", f"duplicate id {ident!r}: ids must be unique")
        seen.add(ident)
        size = as_int(item["size"], f"{place}.size")
        if size <= 0:
            fail(f"{place}.size", "must be > 0")
        if cyclic:
            start, end = _arc(item, place, horizon)
        else:
            start, end = _span(item, place, horizon, f"lies beyond the horizon ({horizon})")
        alignment = 1
        if "alignment" in item:
            alignment = as_int(item["alignment"], f"{place}.alignment")
            if alignment < 1:
                fail(f"{place}.alignment", "must be >= 1")
        cls = as_str(item["class"], f"{place}.class") if "class" in item else DEFAULT_CLASS
        interleaved = False
        if "interleaved" in item:
            interleaved = item["interleaved"]
            if not isinstance(interleaved, bool):
                fail(f"{place}.interleaved", f"must be true or false, got {type_name(interleaved)}")
        label = as_str(item["label"], f"{place}.label") if "label" in item else None
        source = as_str(item["source"], f"{place}.source") if "source" in item else None
        name = as_str(item["name"], f"{place}.name") if "name" in item else None
        if name == "":
            fail(f"{place}.name", "must not be empty")
        out.append(
            Request(ident, size, start, end, alignment, cls, interleaved, label, source, name)
        )
    return tuple(out)


def _sequences(value: object, requests: tuple[Request, ...], ids: set[str]) -> tuple[Sequence, ...]:
    raw = as_list(value, "sequences")
    by_id = {r.id: r for r in requests}
    owner: dict[str, int] = {}
    seq_ids: set[str] = set()
    out: list[Sequence] = []
    for k, item in enumerate(raw):
        place = f"sequences[{k}]"
        s = as_object(item, place, _SEQUENCE_KEYS, ("id", "members"))
        ident = as_str(s["id"], f"{place}.id")
        if not ident:
            fail(f"{place}.id", "must not be empty")
        if ident in ids or ident in seq_ids:
            fail(
                f"{place}.id",
                f"duplicate id {ident!r}: request and sequence ids share one namespace",
            )
        seq_ids.add(ident)
        members_raw = as_list(s["members"], f"{place}.members")
        if not members_raw:
            fail(f"{place}.members", "must list at least one request id")
        members: list[str] = []
        for j, m in enumerate(members_raw):
            mplace = f"{place}.members[{j}]"
            member = as_str(m, mplace)
            if member not in by_id:
                fail(mplace, f"unknown request id {member!r}")
            if member in owner:
                other = owner[member]
                where = "this sequence" if other == k else f"sequences[{other}]"
                fail(mplace, f"request {member!r} is already a member of {where}")
            owner[member] = k
            members.append(member)
        repeat = as_str(s["repeat"], f"{place}.repeat") if "repeat" in s else None
        reqs = [by_id[m] for m in members]
        base = sequence_base(tuple(r.size for r in reqs), tuple(r.alignment for r in reqs))
        if base is not None and base[1] >= INT_LIMIT:
            fail(
                f"{place}.members",
                f"the members' alignments combine to a period of {INT_LIMIT_TEXT} or more",
            )
        if base is None:
            fail(
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
    raw = as_list(value, "conflicts")
    out: list[Conflict] = []
    for k, item in enumerate(raw):
        place = f"conflicts[{k}]"
        pair = as_list(item, place)
        if len(pair) != 2:
            fail(place, f"must be a pair [a, b] of ids, got {counted(len(pair), 'item')}")
        a = as_str(pair[0], f"{place}[0]")
        b = as_str(pair[1], f"{place}[1]")
        for j, ident in enumerate((a, b)):
            if ident not in ids and ident not in seq_members:
                fail(f"{place}[{j}]", f"unknown id {ident!r}")
        if a == b:
            fail(place, f"a request cannot conflict with itself ({a!r})")
        side_a = seq_members.get(a, {a})
        side_b = seq_members.get(b, {b})
        if side_a & side_b:
            fail(
                place,
                f"self-conflict: {a!r} and {b!r} share request {sorted(side_a & side_b)[0]!r}",
            )
        out.append(Conflict(a, b))
    return tuple(out)


def _production(value: object) -> tuple[str, ...]:
    from tilefit.engine.strategy import as_placers

    raw = as_list(value, "production")
    if not raw:
        fail("production", "must list at least one strategy")
    names: list[str] = []
    for k, item in enumerate(raw):
        name = as_str(item, f"production[{k}]")
        try:
            as_placers((name,))
        except ValueError as error:
            fail(f"production[{k}]", str(error))
        names.append(name)
    return tuple(names)


# --------------------------------------------------------------------------- files


def read_capture(path: str | Path, capacity: int | None = None) -> Capture:
    """Read a capture: a JSON capture, or a minimalloc CSV (capacity from the name or argument).

    ``capacity`` on a JSON capture asks about its one memory range made that many bytes
    (``tilefit.model.edits.with_capacity``: the range keeps its start, the memory ends
    where it ends); a capture of several ranges is bad input.
    """
    path = Path(path)
    try:
        refuse(path, "a capture")
        if path.suffix.lower() == ".csv":
            from tilefit.formats.minimalloc import capture_from_csv

            return capture_from_csv(read_text(path), path.name, capacity)
        capture = capture_from_json(_one_capture(read_text(path), path), default_name=path.stem)
        if capacity is None:
            return capture
        from dataclasses import replace

        from tilefit.model.edits import with_capacity

        return replace(capture, memory=with_capacity(capture.memory, capacity, "--capacity"))
    except InputError as error:
        raise error.located(str(path)) from None


def _one_capture(text: str, path: Path) -> object:
    """The JSON of one capture; several objects one after the other are a bundle, said so."""
    try:
        return parse_json(text)
    except MoreAfterValue as error:
        if not error.objects:
            raise
        raise InputError(
            error.place,
            "a second JSON object starts here, so this is a bundle of captures (one a line, "
            f"as in .jsonl): `tilefit batch {shlex.quote(str(path))}` reads a bundle; every "
            "other command reads one capture",
        ) from None


def read_placement(path: str | Path) -> Placement:
    """Read a placement: the JSON placement format, or a minimalloc CSV with an offset column."""
    path = Path(path)
    try:
        refuse(path, "a placement")
        if path.suffix.lower() == ".csv":
            from tilefit.formats.minimalloc import placement_from_csv

            return placement_from_csv(read_text(path), path.name)
        return placement_from_json(parse_json(read_text(path)))
    except InputError as error:
        raise error.located(str(path)) from None


def placement_from_json(obj: object) -> Placement:
    if isinstance(obj, dict) and obj.get("format") == FORMAT:
        fail("format", f'"{FORMAT}": this is a capture, not a placement')
    top = as_object(obj, "", _PLACEMENT_KEYS, ("format", "version", "offsets"))
    if top["format"] != PLACEMENT_FORMAT:
        fail("format", f'must be "{PLACEMENT_FORMAT}"')
    if type(top["version"]) is not int or top["version"] != 1:
        fail("version", "must be 1")
    name = as_str(top["capture"], "capture") if "capture" in top else ""
    raw = top["offsets"]
    if not isinstance(raw, dict):
        fail("offsets", f"must be an object of id: offset, got {type_name(raw)}")
    offsets = {ident: as_int(off, f"offsets.{ident}") for ident, off in raw.items()}
    return Placement(capture=name, offsets=offsets)


def read_text(path: Path) -> str:
    """A file's UTF-8 text; an unreadable file is an InputError (to be located with its name)."""
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
