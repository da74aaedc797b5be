"""``python -m tilefit``: the same as the ``tilefit`` command."""

from tilefit.cli import entry

entry()
