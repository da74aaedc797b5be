"""Edits on a capture (model.edits) and their file and option forms (formats.edits)."""

from __future__ import annotations

import json
import shlex
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from checkout import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from tilefit.formats.edits import (
    edit_argument,
    edit_from_option,
    edits_from_json,
    edits_json,
    edits_text,
    read_edits,
)
from tilefit.formats.jsonread import parse_json
from tilefit.formats.load import capture_from_json, read_capture
from tilefit.formats.save import capture_to_json
from tilefit.model.capture import Capture, Memory, Range
from tilefit.model.edits import (
    WHAT_IF_RANGE,
    AddCapacity,
    Drop,
    Edit,
    Lifetime,
    Resize,
    apply_edits,
    matching,
    removed_top,
    with_capacity,
)
from tilefit.model.errors import INT_LIMIT, InputError

EXAMPLES = ROOT / "examples"

# Two sequences (one with members of different alignments), conflicts naming a
# request and a sequence, an observed failure, an interleaved region.
DOC: dict[str, Any] = {
    "format": "tilefit-capture",
    "version": 1,
    "name": "ed",
    "horizon": 10,
    "memory": {
        "size": 256,
        "elements": [0, 128],
        "interleaved_offset": 192,
        "ranges": [{"start": 0, "end": 224, "name": "main"}],
    },
    "requests": [
        {"id": "w[0]", "size": 32, "alignment": 8, "start": 0, "end": 10},
        {"id": "w[1]", "size": 32, "alignment": 8, "start": 0, "end": 10},
        {"id": "m0.x", "size": 24, "start": 1, "end": 4, "class": "act"},
        {"id": "m1.x", "size": 24, "start": 5, "end": 8, "class": "act"},
        {"id": "m0.s", "size": 16, "alignment": 16, "start": 2, "end": 3, "class": "scratch"},
        {"id": "p.a", "size": 16, "alignment": 16, "start": 0, "end": 5},
        {"id": "p.b", "size": 8, "alignment": 8, "start": 0, "end": 5},
    ],
    "sequences": [
        {"id": "w", "members": ["w[0]", "w[1]"]},
        {"id": "p", "members": ["p.a", "p.b"]},
    ],
    "conflicts": [["w", "m0.x"], ["m0.s", "m1.x"], ["p", "m0.s"]],
    "observed": {"failed": "m0.s"},
}


def doc_capture() -> Capture:
    return capture_from_json(DOC)


def reloads(capture: Capture) -> bool:
    """An edited capture is still a valid capture: it saves and loads back equal."""
    return capture_from_json(capture_to_json(capture)) == capture


# --------------------------------------------------------------------------- model.edits


def test_drop_a_request_drops_its_conflicts_and_the_observed_failure() -> None:
    edited = apply_edits(doc_capture(), [Drop("m0.s", "--drop")])
    assert "m0.s" not in edited.request_by_id
    assert [(c.a, c.b) for c in edited.conflicts] == [("w", "m0.x")]
    assert edited.observed_failed is None
    assert reloads(edited)


def test_dropping_a_member_closes_the_sequence_up() -> None:
    edited = apply_edits(doc_capture(), [Drop("w[0]", "--drop")])
    assert edited.sequence_by_id["w"].members == ("w[1]",)
    assert ("w", "m0.x") in [(c.a, c.b) for c in edited.conflicts]  # the sequence is still there
    assert edited.observed_failed == "m0.s"
    assert reloads(edited)


def test_a_sequence_id_stands_for_its_members() -> None:
    capture = doc_capture()
    assert matching(capture, "w", "x") == ["w[0]", "w[1]"]
    edited = apply_edits(capture, [Drop("w", "--drop")])
    assert "w" not in edited.sequence_by_id
    assert not {"w[0]", "w[1]"} & set(edited.request_by_id)
    assert [(c.a, c.b) for c in edited.conflicts] == [("m0.s", "m1.x"), ("p", "m0.s")]
    assert reloads(edited)
    resized = apply_edits(capture, [Resize("w", 40, False, "--resize")])
    assert [resized.request_by_id[m].size for m in ("w[0]", "w[1]")] == [40, 40]


def test_patterns_and_exact_ids_with_brackets() -> None:
    capture = doc_capture()
    assert matching(capture, "m*.x", "x") == ["m0.x", "m1.x"]
    assert matching(capture, "m?.*", "x") == ["m0.x", "m1.x", "m0.s"]
    # fnmatch reads [0] as a set of characters; an exact id names itself all the same.
    assert matching(capture, "w[0]", "x") == ["w[0]"]
    assert matching(capture, "w[[]1]", "x") == ["w[1]"]
    with pytest.raises(InputError) as error:
        matching(capture, "nope*", "--drop nope*")
    assert error.value.message == "--drop nope*: no request or sequence id matches 'nope*'"


def test_resize_absolute_and_relative_in_order() -> None:
    edited = apply_edits(
        doc_capture(),
        [
            Resize("m*.x", 40, False, "a"),
            Resize("m1.x", -8, True, "b"),
            Resize("m0.x", 8, True, "c"),
        ],
    )
    assert edited.request_by_id["m0.x"].size == 48
    assert edited.request_by_id["m1.x"].size == 32
    assert reloads(edited)


@pytest.mark.parametrize("size", [-24, -100])
def test_a_size_at_or_below_zero_is_bad_input_at_the_edit(size: int) -> None:
    with pytest.raises(InputError) as error:
        apply_edits(doc_capture(), [Resize("m0.x", size, True, "edits[3]")])
    assert error.value.place == "edits[3]"
    assert "m0.x would be" in error.value.rule


def test_a_size_past_the_limit_is_bad_input() -> None:
    with pytest.raises(InputError, match="below 2"):
        apply_edits(doc_capture(), [Resize("m0.x", INT_LIMIT - 1, True, "x")])


def test_a_sequence_that_can_no_longer_be_aligned_is_bad_input() -> None:
    # p.b (8-aligned) follows p.a: with p.a 12 B long, p.b would need base = 4 mod 8
    # while p.a needs base = 0 mod 16.
    with pytest.raises(InputError) as error:
        apply_edits(doc_capture(), [Resize("p.a", 12, False, "--resize p.a=12")])
    assert error.value.place == "--resize p.a=12"
    assert "sequence p" in error.value.rule
    # Dropping p.a leaves p.b alone: still aligned.
    assert reloads(apply_edits(doc_capture(), [Drop("p.a", "x")]))


def test_lifetime() -> None:
    edited = apply_edits(doc_capture(), [Lifetime("m*.x", 0, 10, "x")])
    assert [(r.start, r.end) for r in edited.requests if r.id.endswith(".x")] == [(0, 10)] * 2
    assert reloads(edited)


@pytest.mark.parametrize(("start", "end"), [(-1, 3), (3, 3), (4, 2), (0, 11)])
def test_a_lifetime_outside_the_horizon_is_bad_input(start: int, end: int) -> None:
    with pytest.raises(InputError) as error:
        apply_edits(doc_capture(), [Lifetime("m0.x", start, end, "--lifetime")])
    assert error.value.place == "--lifetime"
    assert "horizon (10)" in error.value.rule


def test_add_capacity_adds_a_range_and_an_element_at_the_top() -> None:
    capture = doc_capture()
    edited = apply_edits(capture, [AddCapacity(64, "x")])
    memory = edited.memory
    assert memory.size == 320
    assert memory.available == capture.available + 64
    assert memory.ranges[-1].name == WHAT_IF_RANGE and memory.ranges[-1].classes is None
    assert memory.elements == (0, 128, 256)
    assert memory.interleaved_offset == 192  # memory ended interleaved: the new bytes are too
    assert reloads(edited)
    twice = apply_edits(edited, [AddCapacity(32, "y")])
    assert twice.memory.available == capture.available + 96 and reloads(twice)


def test_add_capacity_keeps_new_bytes_out_of_an_empty_interleaved_region() -> None:
    doc = json.loads(json.dumps(DOC))
    doc["memory"]["interleaved_offset"] = 256  # no interleaved address at all
    edited = apply_edits(capture_from_json(doc), [AddCapacity(64, "x")])
    assert edited.memory.interleaved_offset is None
    assert edited.memory.allowed("act", interleaved=True) == ()
    assert reloads(edited)


@pytest.mark.parametrize("size", [0, -224, -225, INT_LIMIT])
def test_bad_capacity_is_bad_input(size: int) -> None:
    with pytest.raises(InputError) as error:
        apply_edits(doc_capture(), [AddCapacity(size, "--capacity-add")])
    assert error.value.place == "--capacity-add"


def test_a_negative_capacity_removes_bytes_from_the_top() -> None:
    # Issue 27, item 6: AddCapacity(-8) was bad input ("must be > 0").
    capture = doc_capture()  # one range [0, 224) in [0, 256), elements 0 and 128, interleaved 192
    less = apply_edits(capture, [AddCapacity(-16, "x")]).memory
    assert (less.size, less.ranges, less.elements, less.interleaved_offset) == (
        208,
        (Range(0, 208, "main"),),
        (0, 128),
        192,
    )
    # Past the interleaved offset and the second element: both go with the bytes.
    less = apply_edits(capture, [AddCapacity(-100, "x")]).memory
    assert (less.size, less.ranges, less.elements, less.interleaved_offset) == (
        124,
        (Range(0, 124, "main"),),
        (0,),
        None,
    )
    assert less.allowed("act", interleaved=True) == ()
    with pytest.raises(InputError, match="removes 224 B of the 224 B available: nothing would"):
        apply_edits(capture, [AddCapacity(-224, "x")])


def test_removing_takes_available_bytes_the_highest_first() -> None:
    small = read_capture(
        EXAMPLES / "small.json"
    ).memory  # [64, 896) variables, [896, 1024) aperture
    aperture_gone = removed_top(small, 128, "x")
    assert aperture_gone.ranges == (Range(64, 896, "variables"),)
    assert (aperture_gone.size, aperture_gone.elements) == (896, (0, 256, 512, 768))
    assert aperture_gone.interleaved_offset == 512
    less = removed_top(small, 200, "x")
    assert less.ranges == (Range(64, 824, "variables"),) and less.available == 760
    # A gap between ranges holds no available byte: the bytes come from below it.
    gap = Memory(400, (Range(0, 100), Range(200, 300)))
    assert removed_top(gap, 150, "x") == Memory(50, (Range(0, 50),))
    assert removed_top(gap, 100, "x") == Memory(100, (Range(0, 100),))


def test_with_capacity_resizes_the_one_range_and_the_memory_follows() -> None:
    memory = doc_capture().memory
    assert with_capacity(memory, 224, "c") == Memory(224, (Range(0, 224, "main"),), (0, 128), 192)
    # More: the range grows, the last element runs to the new end, the interleaved region
    # that reached the top grows with it.
    assert with_capacity(memory, 300, "c") == Memory(300, (Range(0, 300, "main"),), (0, 128), 192)
    # Less: as removing the top bytes.
    assert with_capacity(memory, 100, "c") == removed_top(memory, 124, "c")
    assert with_capacity(memory, 100, "c") == Memory(100, (Range(0, 100, "main"),), (0,), None)
    # A range that keeps its start and classes; no interleaved region stays none.
    shifted = Memory(128, (Range(64, 128, "r", ("x",)),), (0,), 128)
    assert with_capacity(shifted, 200, "c") == Memory(264, (Range(64, 264, "r", ("x",)),))
    for bad in (0, -1, INT_LIMIT):
        with pytest.raises(InputError, match="must be > 0"):
            with_capacity(memory, bad, "c")
    small = read_capture(EXAMPLES / "small.json").memory
    with pytest.raises(InputError, match="one range, and this capture's has 2: tilefit whatif"):
        with_capacity(small, 500, "--capacity")


def test_the_first_bad_edit_is_the_one_reported() -> None:
    with pytest.raises(InputError) as error:
        apply_edits(doc_capture(), [Drop("m0.x", "first"), Drop("m0.x", "second")])
    assert error.value.place == "second"  # m0.x is gone by then


@st.composite
def some_edits(draw: st.DrawFn) -> list[Edit]:
    patterns = st.sampled_from(["w", "w[0]", "w[1]", "m*.x", "m0.s", "p", "p.*", "*"])
    edits: list[Edit] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["drop", "resize", "by", "lifetime", "capacity"]))
        if kind == "drop":
            edits.append(Drop(draw(patterns), "x"))
        elif kind == "resize":
            edits.append(Resize(draw(patterns), draw(st.sampled_from([8, 16, 24, 40])), False, "x"))
        elif kind == "by":
            edits.append(Resize(draw(patterns), draw(st.sampled_from([-8, 8, 16])), True, "x"))
        elif kind == "lifetime":
            start = draw(st.integers(0, 9))
            edits.append(Lifetime(draw(patterns), start, draw(st.integers(start + 1, 10)), "x"))
        else:
            amount = draw(st.integers(-240, 100).filter(bool))
            edits.append(AddCapacity(amount, "x"))
    return edits


@settings(max_examples=200, deadline=None)
@given(some_edits())
def test_every_edited_capture_is_a_valid_capture_or_bad_input(edits: list[Edit]) -> None:
    try:
        edited = apply_edits(doc_capture(), edits)
    except InputError as error:
        assert error.place == "x"
        return
    assert reloads(edited)


# --------------------------------------------------------------------------- the file


def file_doc(*edits: object) -> dict[str, Any]:
    return {"format": "tilefit-edits", "version": 1, "edits": list(edits)}


def test_every_kind_from_json_with_its_place() -> None:
    edits = edits_from_json(
        file_doc(
            {"drop": "m0.s"},
            {"resize": "m*.x", "size": 40},
            {"resize": "w", "by": -8},
            {"lifetime": "p", "start": 1, "end": 4},
            {"capacity_add": 64},
        )
    )
    assert edits == (
        Drop("m0.s", "edits[0].drop"),
        Resize("m*.x", 40, False, "edits[1]"),
        Resize("w", -8, True, "edits[2]"),
        Lifetime("p", 1, 4, "edits[3]"),
        AddCapacity(64, "edits[4].capacity_add"),
    )
    assert edits_from_json(file_doc()) == ()


BAD_FILES: list[tuple[object, str]] = [
    ([], ": must be an object, got a list"),
    ({"format": "tilefit-capture"}, 'format: "tilefit-capture": this is a capture'),
    ({"format": "tilefit-edits", "version": 1}, "edits: required key is missing"),
    ({**file_doc(), "note": "x"}, "note: unknown key"),
    ({**file_doc(), "format": "edits"}, 'format: must be "tilefit-edits"'),
    ({**file_doc(), "version": 2}, "version: must be 1"),
    ({**file_doc(), "edits": {}}, "edits: must be a list, got an object"),
    (file_doc(3), "edits[0]: must be an object, got an integer"),
    (file_doc({}), "edits[0]: must name one edit"),
    (file_doc({"dorp": "x"}), "edits[0].dorp: unknown key"),
    (file_doc({"drop": "x", "size": 3}), "edits[0].size: unknown key"),
    (file_doc({"drop": "x", "resize": "y"}), "edits[0].resize: one edit per object"),
    (file_doc({"drop": ""}), "edits[0].drop: must name a request"),
    (file_doc({"drop": 3}), "edits[0].drop: must be a string"),
    (file_doc({"resize": "x"}), "edits[0]: a resize needs size"),
    (file_doc({"resize": "x", "size": 8, "by": 8}), "edits[0].by: give size"),
    (file_doc({"resize": "x", "size": 0}), "edits[0].size: must be > 0"),
    (file_doc({"resize": "x", "size": 1.5}), "edits[0].size: must be an integer"),
    (file_doc({"resize": "x", "by": True}), "edits[0].by: must be an integer, got a boolean"),
    (file_doc({"resize": "x", "by": -(2**62)}), "edits[0].by: must be below 2^62"),
    (file_doc({"lifetime": "x", "start": 1}), "edits[0].end: required key is missing"),
    (file_doc({"lifetime": "x", "start": -1, "end": 3}), "edits[0].start: must be >= 0"),
    (file_doc({"lifetime": "x", "start": 3, "end": 3}), "edits[0].end: must differ from start (3)"),
    (file_doc({"drop": "a"}, {"capacity_add": 0}), "edits[1].capacity_add: must not be 0"),
    (file_doc({"capacity_add": "8"}), "edits[0].capacity_add: must be an integer, got a string"),
]


@pytest.mark.parametrize(("obj", "expected"), BAD_FILES)
def test_bad_files_name_the_json_path(obj: object, expected: str) -> None:
    with pytest.raises(InputError) as error:
        edits_from_json(obj)
    assert f"{error.value.place}: {error.value.rule}".startswith(expected)


def test_read_edits_locates_errors_and_edits_with_the_file_name(tmp_path: Path) -> None:
    path = tmp_path / "e.json"
    path.write_text(json.dumps(file_doc({"drop": "m0.s"}, {"resize": "m0.x", "by": -100})))
    edits = read_edits(path)
    assert [e.place for e in edits] == [f"{path}: edits[0].drop", f"{path}: edits[1]"]
    with pytest.raises(InputError) as error:
        apply_edits(doc_capture(), edits)
    assert error.value.message.startswith(f"{path}: edits[1]: m0.x would be -76 B")
    path.write_text(json.dumps(file_doc({"drop": 1})))
    with pytest.raises(InputError) as error:
        read_edits(path)
    assert error.value.message == f"{path}: edits[0].drop: must be a string, got an integer"
    path.write_text('{"format": "tilefit-edits", "version": 1, "edits": [}')
    with pytest.raises(InputError, match=r"e\.json: line 1 column \d+: malformed JSON"):
        read_edits(path)
    with pytest.raises(InputError, match="no such file"):
        read_edits(tmp_path / "missing.json")


def test_edits_text_writes_one_edit_per_line() -> None:
    text = edits_text([Drop("a", ""), Resize("b", -8, True, "")])
    assert text == (
        "{\n"
        '  "format": "tilefit-edits",\n'
        '  "version": 1,\n'
        '  "edits": [\n'
        '    {"drop": "a"},\n'
        '    {"resize": "b", "by": -8}\n'
        "  ]\n"
        "}\n"
    )
    assert json.loads(edits_text([])) == file_doc()


PATTERNS = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1)
NUMBERS = st.integers(-(2**62) + 1, 2**62 - 1)


@st.composite
def edit_values(draw: st.DrawFn) -> Edit:
    kind = draw(st.sampled_from(["drop", "size", "by", "lifetime", "capacity"]))
    if kind == "capacity":
        return AddCapacity(draw(NUMBERS.filter(bool)), "")
    pattern = draw(PATTERNS)
    if kind == "drop":
        return Drop(pattern, "")
    if kind == "size":
        return Resize(pattern, draw(st.integers(1, 2**62 - 1)), False, "")
    if kind == "by":
        return Resize(pattern, draw(NUMBERS), True, "")
    start = draw(st.integers(0, 2**62 - 2))
    return Lifetime(pattern, start, draw(st.integers(start + 1, 2**62 - 1)), "")


def unplaced(edits: tuple[Edit, ...] | list[Edit]) -> list[Edit]:
    return [replace(e, place="") for e in edits]


@settings(max_examples=300, deadline=None)
@given(st.lists(edit_values(), max_size=6))
def test_the_file_round_trips(edits: list[Edit]) -> None:
    text = edits_text(edits)
    assert unplaced(edits_from_json(parse_json(text))) == edits
    assert edits_json(edits) == json.loads(text)


@settings(max_examples=300, deadline=None)
@given(edit_values())
def test_the_command_line_form_round_trips(edit: Edit) -> None:
    option, value = shlex.split(edit_argument(edit))
    assert unplaced([edit_from_option(option, value)]) == [edit]


# --------------------------------------------------------------------------- options


def test_options_give_every_kind_with_the_option_as_the_place() -> None:
    assert edit_from_option("--drop", "m*.x") == Drop("m*.x", "--drop m*.x")
    assert edit_from_option("--resize", "a=b=64") == Resize("a=b", 64, False, "--resize a=b=64")
    assert edit_from_option("--resize", "x=+8") == Resize("x", 8, True, "--resize x=+8")
    assert edit_from_option("--resize", "x=-8") == Resize("x", -8, True, "--resize x=-8")
    assert edit_from_option("--lifetime", "x=0:4") == Lifetime("x", 0, 4, "--lifetime x=0:4")
    assert edit_from_option("--capacity-add", "4096") == AddCapacity(4096, "--capacity-add 4096")
    assert edit_from_option("--capacity-add", "-64") == AddCapacity(-64, "--capacity-add -64")
    assert edits_from_json(file_doc({"capacity_add": -64})) == (
        AddCapacity(-64, "edits[0].capacity_add"),
    )


BAD_OPTIONS = [
    ("--drop", "", "--drop: must name a request"),
    ("--resize", "x", "--resize x: must be ID=BYTES"),
    ("--resize", "=8", "--resize =8: must name a request"),
    ("--resize", "x=", "--resize x=: '' is not a whole number"),
    ("--resize", "x=8k", "--resize x=8k: '8k' is not a whole number"),
    ("--resize", "x=0", "--resize x=0: must be > 0, got 0"),
    ("--resize", "x=-0x10", "--resize x=-0x10: '-0x10' is not"),
    ("--resize", "x=" + "9" * 5000, "--resize x=999"),
    ("--resize", "x=4611686018427387904", "--resize x=4611686018427387904: must be below 2^62"),
    ("--lifetime", "x=3", "--lifetime x=3: must be ID=START:END"),
    ("--lifetime", "x:3:4", "--lifetime x:3:4: must be ID=START:END"),
    ("--lifetime", "x=3:", "--lifetime x=3:: '' is not"),
    ("--lifetime", "x=-1:3", "--lifetime x=-1:3: START must be >= 0"),
    ("--lifetime", "x=4:4", "--lifetime x=4:4: END must differ from START"),
    ("--capacity-add", "0", "--capacity-add 0: must not be 0"),
    ("--capacity-add", "+8", "ok"),
    ("--capacity-add", "1.5", "--capacity-add 1.5: '1.5' is not"),
]


@pytest.mark.parametrize(("option", "text", "expected"), BAD_OPTIONS)
def test_bad_options_name_the_option(option: str, text: str, expected: str) -> None:
    if expected == "ok":
        assert edit_from_option(option, text) == AddCapacity(8, f"{option} {text}")
        return
    with pytest.raises(InputError) as error:
        edit_from_option(option, text)
    assert error.value.message.startswith(expected)
    assert "9" * 100 not in error.value.rule


def test_every_edited_example_reloads() -> None:
    capture = read_capture(EXAMPLES / "1-0.json")
    edited = apply_edits(
        capture,
        [
            Resize("m*.l3.cast.staging", -16328, True, "x"),
            Drop("w3.attn_qkv[1]", "x"),
            Lifetime("m3.*", 50, 58, "x"),
            AddCapacity(4096, "x"),
        ],
    )
    assert reloads(edited)
