"""The JSON Schemas shipped with the package: the capture format and every ``--json``.

- ``capture_schema()``: a capture (``capture-v1.schema.json``);
- ``output_schema(command)``: what ``tilefit COMMAND --json`` prints
  (``output-v1.schema.json``, one definition per command under ``$defs``,
  beside the shared concepts: attempt, failure, contributor, placement).
"""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any


def _load(name: str) -> dict[str, Any]:
    text = files(__package__).joinpath(name).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def capture_schema() -> dict[str, Any]:
    return _load("capture-v1.schema.json")


def json_commands() -> tuple[str, ...]:
    """The commands with ``--json``: those of capture-v1's table, then batch and synth."""
    return tuple(_load("output-v1.schema.json")["commands"])


def output_schema(command: str) -> dict[str, Any]:
    """The schema of one command's ``--json`` object; KeyError for a command without one."""
    whole = _load("output-v1.schema.json")
    if command not in whole["commands"]:
        raise KeyError(command)
    return {
        "$schema": whole["$schema"],
        "$id": whole["$id"],
        "$ref": f"#/$defs/{command}",
        "$defs": whole["$defs"],
    }
