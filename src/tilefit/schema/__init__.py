"""The JSON Schema of the capture format, shipped with the package."""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any


def capture_schema() -> dict[str, Any]:
    text = files(__package__).joinpath("capture-v1.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
