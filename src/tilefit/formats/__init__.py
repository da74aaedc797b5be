"""Reading and writing: the capture and placement files and their foreign forms.

- ``load``: capture and placement JSON in, every rule of the format enforced;
- ``jsonread``: typed JSON access with paths in the errors (duplicate keys too);
- ``save``: the canonical writer (round-trips with ``load``);
- ``minimalloc``: minimalloc CSV in and out.

The capture's JSON Schema ships in ``tilefit.schema``.
"""
