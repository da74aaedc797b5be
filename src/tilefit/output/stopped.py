"""``--json``'s ``stopped``: where a command's limit stopped it short (``verdicts/stopped``)."""

from __future__ import annotations

from tilefit.verdicts.stopped import Stopped


def stopped_json(s: Stopped | None) -> dict[str, str] | None:
    """What it did not reach and the option that gives it more (null: it has all it asked)."""
    if s is None:
        return None
    return {"limit": s.limit, "option": s.option, "before": s.before, "text": s.text}
