"""What the commands print for programs: ``jsonout`` holds every command's ``--json``.

The JSON Schemas of these objects ship in ``tilefit.schema`` beside the
capture's; ``docs/json.md`` describes them.
"""
