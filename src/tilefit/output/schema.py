"""The ``--json`` schemas as the package's code emits them: the shipped file, with the
names read from the registries filled in.

``tilefit.schema.output_schema`` is the file as shipped (``output-v1.schema.json``); the
route that decided (``diagnose``'s ``search_route``) is one of the route registry's
names (``tilefit.search.routes``), which the file does not repeat: this fills in the
enum from the registry as it stands, so that a route registered in one entry is one
the schema accepts.
"""

from __future__ import annotations

from typing import Any

from tilefit.schema import output_schema as shipped
from tilefit.search.routes import names


def output_schema(command: str) -> dict[str, Any]:
    """The schema of one command's ``--json`` object; KeyError for a command without one."""
    schema = shipped(command)
    route = schema["$defs"]["diagnose"]["properties"]["search_route"]["anyOf"][0]
    route.pop("$comment", None)
    route["enum"] = list(names())
    return schema
