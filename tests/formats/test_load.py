"""The loader enforces every rule of capture-v1, naming the place and the rule."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from checkout import ROOT

from tilefit.formats.load import capture_from_json, parse_json, read_capture, read_placement
from tilefit.model.capture import Conflict, Range, Sequence
from tilefit.model.errors import InputError


def small() -> dict[str, Any]:
    return {
        "format": "tilefit-capture",
        "version": 1,
        "name": "small",
        "tile": 3,
        "horizon": 10,
        "memory": {
            "size": 256,
            "elements": [0, 64, 128, 192],
            "interleaved_offset": 128,
            "ranges": [
                {"start": 0, "end": 200, "name": "main"},
                {"start": 200, "end": 256, "name": "host", "classes": ["scratch"]},
            ],
        },
        "requests": [
            {"id": "w0", "size": 16, "alignment": 8, "start": 0, "end": 10, "class": "resident"},
            {"id": "w1", "size": 16, "alignment": 8, "start": 0, "end": 10, "class": "resident"},
            {"id": "s", "size": 32, "alignment": 32, "start": 2, "end": 4, "class": "scratch"},
            {"id": "a", "size": 8, "start": 1, "end": 5, "interleaved": True, "label": "act"},
        ],
        "sequences": [{"id": "W", "members": ["w0", "w1"], "repeat": "layer"}],
        "conflicts": [["W", "a"]],
        "observed": {"failed": "W"},
    }


def load(obj: Any) -> Any:
    return capture_from_json(obj)


def test_loads_every_field() -> None:
    c = load(small())
    assert c.name == "small" and c.tile == 3 and c.horizon == 10
    assert c.memory.elements == (0, 64, 128, 192)
    assert c.memory.interleaved_start == 128
    assert c.memory.ranges[1] == Range(200, 256, "host", ("scratch",))
    assert c.available == 256
    assert c.sequences == (Sequence("W", ("w0", "w1"), "layer"),)
    assert c.conflicts == (Conflict("W", "a"),)
    assert c.observed_failed == "W"
    a = c.request_by_id["a"]
    assert a.interleaved and a.label == "act" and a.cls == "default" and a.alignment == 1
    assert c.production == ("lifetime/first-fit", "alignment/first-fit")


def test_allowed_set_joins_adjacent_ranges_and_honours_classes() -> None:
    c = load(small())
    assert c.memory.allowed("scratch") == ((0, 256),)
    assert c.memory.allowed("resident") == ((0, 200),)
    assert c.memory.allowed("resident", interleaved=True) == ((128, 200),)


def test_name_defaults_to_file_stem(tmp_path: Path) -> None:
    obj = small()
    del obj["name"]
    path = tmp_path / "0-7.json"
    path.write_text(json.dumps(obj))
    assert read_capture(path).name == "0-7"


def mutate(path: str, value: Any) -> dict[str, Any]:
    """A copy of small() with the value at a dotted path replaced (or deleted, for ...)."""
    obj = copy.deepcopy(small())
    keys: list[Any] = [int(k) if k.isdigit() else k for k in path.split(".")]
    node: Any = obj
    for k in keys[:-1]:
        node = node[k]
    if value is ...:
        del node[keys[-1]]
    else:
        node[keys[-1]] = value
    return obj


BAD: list[tuple[str, Any, str, str]] = [
    # (path to change, new value, expected place, words of the rule)
    ("format", "other", "format", "tilefit-capture"),
    ("version", 2, "version", "must be 1"),
    ("horizon", ..., "horizon", "missing"),
    ("horizon", 0, "horizon", "> 0"),
    ("horizon", "10", "horizon", "integer"),
    ("tile", -1, "tile", ">= 0"),
    ("colour", "red", "colour", "unknown key"),
    ("memory.size", 0, "memory.size", "> 0"),
    ("memory.size", 2.5, "memory.size", "integer"),
    ("memory.elements", [0, 64, 64], "memory.elements[2]", "ascending"),
    ("memory.elements", [8, 64], "memory.elements[0]", "start at 0"),
    ("memory.elements", [0, 300], "memory.elements[1]", "< memory.size"),
    ("memory.interleaved_offset", 300, "memory.interleaved_offset", "[0, 256]"),
    ("memory.ranges", [], "memory.ranges", "at least one"),
    ("memory.ranges.0.end", 210, "memory.ranges[1]", "overlaps memory.ranges[0]"),
    ("memory.ranges.1.end", 300, "memory.ranges[1].end", "beyond the memory"),
    ("memory.ranges.0.start", -1, "memory.ranges[0].start", ">= 0"),
    ("memory.ranges.1.classes", [], "memory.ranges[1].classes", "at least one class"),
    ("requests", {}, "requests", "must be a list"),
    ("requests.2.id", "w0", "requests[2].id", "duplicate id"),
    ("requests.2.size", 0, "requests[2].size", "> 0"),
    ("requests.2.size", -4, "requests[2].size", "> 0"),
    ("requests.2.size", True, "requests[2].size", "integer"),
    ("requests.2.alignment", 0, "requests[2].alignment", ">= 1"),
    ("requests.2.end", 2, "requests[2].end", "> start"),
    ("requests.2.end", 11, "requests[2].end", "beyond the horizon"),
    ("requests.2.start", ..., "requests[2].start", "missing"),
    ("requests.2.colour", "x", "requests[2].colour", "unknown key"),
    ("requests.3.interleaved", "yes", "requests[3].interleaved", "true or false"),
    ("sequences.0.members", ["w0", "nope"], "sequences[0].members[1]", "unknown request id"),
    ("sequences.0.members", [], "sequences[0].members", "at least one"),
    ("sequences.0.id", "a", "sequences[0].id", "duplicate id"),
    ("sequences.0.members", ["w0", "w1", "w0"], "sequences[0].members[2]", "already a member"),
    ("conflicts.0", ["W", "W"], "conflicts[0]", "itself"),
    ("conflicts.0", ["W", "w0"], "conflicts[0]", "self-conflict"),
    ("conflicts.0", ["W", "ghost"], "conflicts[0][1]", "unknown id"),
    ("conflicts.0", ["W"], "conflicts[0]", "pair"),
    ("observed.failed", "ghost", "observed.failed", "unknown id"),
    ("production", [], "production", "at least one"),
    ("production", ["lifetime/worst-fit"], "production[0]", "fit"),
]


@pytest.mark.parametrize(("path", "value", "place", "words"), BAD)
def test_bad_input_names_place_and_rule(path: str, value: Any, place: str, words: str) -> None:
    with pytest.raises(InputError) as info:
        load(mutate(path, value))
    assert info.value.place == place
    assert words in info.value.rule


def test_request_in_two_sequences() -> None:
    obj = small()
    obj["sequences"].append({"id": "V", "members": ["w1"]})
    with pytest.raises(InputError) as info:
        load(obj)
    assert info.value.place == "sequences[1].members[0]"
    assert "already a member of sequences[0]" in info.value.rule


def test_sequence_with_no_aligned_base() -> None:
    obj = small()
    obj["requests"][0]["size"] = 12  # w1 then sits at base+12: both 8-aligned is impossible
    with pytest.raises(InputError) as info:
        load(obj)
    assert info.value.place == "sequences[0].members"
    assert "no base offset aligns every member" in info.value.rule


def test_sequence_alignable_with_odd_prefix() -> None:
    obj = small()
    obj["requests"][0].update(size=12, alignment=4)  # base ≡ 4 (mod 8) aligns both
    assert load(obj).sequences[0].members == ("w0", "w1")


def test_malformed_json_names_line_and_column() -> None:
    with pytest.raises(InputError) as info:
        parse_json('{\n  "format": "tilefit-capture",\n  "version": 1,,\n}')
    assert info.value.place == "line 3 column 16"
    assert "malformed JSON" in info.value.rule


def test_duplicate_key_is_an_error() -> None:
    with pytest.raises(InputError) as info:
        parse_json('{"horizon": 1, "horizon": 2}')
    assert "appears twice" in info.value.rule


def test_top_level_not_an_object() -> None:
    with pytest.raises(InputError) as info:
        load([1, 2])
    assert "must be an object" in info.value.rule


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": 1')
    with pytest.raises(InputError) as info:
        read_capture(path)
    assert info.value.message.startswith(f"{path}: line 1 column 13: malformed JSON")
    with pytest.raises(InputError) as info:
        read_capture(tmp_path / "absent.json")
    assert "no such file" in info.value.message


def test_capacity_on_a_json_capture_of_one_range(tmp_path: Path) -> None:
    # Issue 27, item 6: this was "--capacity: applies only to a minimalloc CSV".
    doc = small()
    doc["memory"]["ranges"] = [{"start": 16, "end": 200, "name": "main"}]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(doc))
    capture = read_capture(path, capacity=100)
    assert capture.available == 100
    assert capture.memory.ranges == (Range(16, 116, "main"),) and capture.memory.size == 116
    assert capture.memory.elements == (0, 64) and capture.memory.interleaved_offset is None
    assert capture.requests == read_capture(path).requests
    assert read_capture(path, capacity=1000).memory.size == 1016


def test_capacity_on_a_capture_of_several_ranges_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps(small()))
    with pytest.raises(InputError) as info:
        read_capture(path, capacity=100)
    assert info.value.message == (
        f"{path}: --capacity: asks about a memory of one range, and this capture's has 2: "
        "tilefit whatif --capacity-add BYTES (or -BYTES) adds (or removes) memory at the top "
        "of any capture"
    )


def test_read_placement_json(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    doc = {"format": "tilefit-placement", "version": 1, "capture": "small", "offsets": {"a": 8}}
    path.write_text(json.dumps(doc))
    placement = read_placement(path)
    assert placement.capture == "small" and dict(placement.offsets) == {"a": 8}
    doc["offsets"] = {"a": "8"}
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError) as info:
        read_placement(path)
    assert info.value.place == "offsets.a"


def test_a_capture_cut_anywhere_says_where_and_that_it_may_be_cut_short() -> None:
    text = (ROOT / "examples" / "small.json").read_text()
    for end in range(1, len(text.rstrip())):
        if not text[:end].strip():
            continue
        with pytest.raises(InputError) as info:
            parse_json(text[:end])
        rule = info.value.rule
        assert re.fullmatch(r"line \d+ column \d+", info.value.place), end
        assert rule.startswith("malformed JSON: ") and rule.endswith(CUT), (end, rule)
        assert "\n" not in info.value.message


CUT = "(the file may be cut short)"
MALFORMED = [
    ('{"format": "tilefit', "line 1 column 12", f"a string starts here and is never closed {CUT}"),
    ('{\n  "horizon": 4,\n  "memory": {', "line 3 column 14", f"inside an object or a list {CUT}"),
    ('{"horizon": }', "line 1 column 13", "expected a value here (an object, a list, a string,"),
    ('{"horizon": 4 "version": 1}', "line 1 column 15", "expected ',' before the next item"),
    ('{"horizon" 4}', "line 1 column 12", "expected ':' between a key and its value"),
    ("{'horizon': 4}", "line 1 column 2", "expected a key in double quotes"),
    ('{"horizon": 4,}', "line 1 column 15", "a comma before the end of an object or list"),
    ('{"a": [1, 2,]}', "line 1 column 13", "(JSON allows no trailing comma)"),
    ('{"name": "a\nb"}', "line 1 column 12", "closing quote may be missing"),
    ('{"name": "a\\qb"}', "line 1 column 12", "an unknown escape in a string"),
    ('{"name": "\\u12"}', "line 1 column 12", "\\u in a string must be followed by four"),
    ("", "line 1 column 1", "the file is empty: expected a JSON object"),
    ("\ufeff{}", "line 1 column 1", "a byte order mark (U+FEFF)"),
    ("{} []", "line 1 column 4", "more text follows the first JSON value"),
]


@pytest.mark.parametrize(("text", "place", "words"), MALFORMED)
def test_malformed_json_is_one_complete_sentence(text: str, place: str, words: str) -> None:
    with pytest.raises(InputError) as info:
        parse_json(text)
    assert info.value.place == place
    rule = info.value.rule
    assert rule.startswith("malformed JSON: ") and words in rule, rule
    assert not rule.endswith((" at", ":")) and "Expecting" not in rule and "\n" not in rule


def test_a_bundle_read_as_one_capture_points_to_batch(tmp_path: Path) -> None:
    line = json.dumps(json.loads((ROOT / "examples/small.json").read_text()))
    path = tmp_path / "model.jsonl"
    path.write_text(f"{line}\n{line}\n")
    with pytest.raises(InputError) as info:
        read_capture(path)
    assert info.value.place == "line 2 column 1"
    assert "a bundle of captures" in info.value.rule
    assert f"`tilefit batch {path}` reads a bundle" in info.value.rule
    one = tmp_path / "one.jsonl"
    one.write_text(f"{line}\n")
    assert read_capture(one).name == "small"  # a bundle of one is a capture
    other = tmp_path / "two.json"
    other.write_text('{"format": "tilefit-capture"} [1]')
    with pytest.raises(InputError) as info:
        read_capture(other)
    assert info.value.rule == "malformed JSON: more text follows the first JSON value"
