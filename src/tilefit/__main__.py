"""``python -m tilefit`` and the ``tilefit`` command's entry point.

It imports nothing heavy before it can answer Ctrl-C: an interrupt at any
moment, even while the command's modules load, exits 130 with one line
("tilefit: interrupted") and no traceback. ``tilefit.cli.entry`` does the
rest (a closed stdout exits quietly with 141).
"""

from __future__ import annotations

import sys
from contextlib import suppress

EXIT_INTERRUPTED = 130  # 128 + SIGINT


def entry() -> None:
    try:
        from tilefit.cli import entry as cli_entry

        cli_entry()
    except KeyboardInterrupt:
        with suppress(OSError, KeyboardInterrupt):
            print("tilefit: interrupted", file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)


if __name__ == "__main__":
    entry()
