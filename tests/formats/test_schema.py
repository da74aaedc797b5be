"""The shipped JSON Schema and the loader agree on the shape of a capture."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from checkout import ROOT

from tilefit.formats.load import capture_from_json
from tilefit.formats.save import capture_to_json
from tilefit.model.errors import InputError
from tilefit.schema import capture_schema

EXAMPLES = sorted((ROOT / "examples").glob("*.json"))


def test_schema_is_valid_draft_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(capture_schema())


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_satisfy_schema_and_loader(path: Path) -> None:
    obj = json.loads(path.read_text())
    jsonschema.validate(obj, capture_schema())
    capture = capture_from_json(obj)
    jsonschema.validate(capture_to_json(capture), capture_schema())


@pytest.mark.parametrize(
    "change",
    [
        {"colour": "red"},
        {"version": 2},
        {"horizon": 0},
        {"requests": [{"id": "a", "size": 0, "start": 0, "end": 1}]},
        {"requests": [{"id": "a", "size": 1, "start": 0, "end": 1, "alignment": 0}]},
        {"conflicts": [["a"]]},
        {"production": ["lifetime"]},
    ],
)
def test_schema_and_loader_both_reject_bad_shapes(change: dict[str, object]) -> None:
    obj = {
        "format": "tilefit-capture",
        "version": 1,
        "horizon": 2,
        "memory": {"size": 8, "ranges": [{"start": 0, "end": 8}]},
        "requests": [{"id": "a", "size": 1, "start": 0, "end": 1}],
        **change,
    }
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(obj, capture_schema())
    with pytest.raises(InputError):
        capture_from_json(obj)
