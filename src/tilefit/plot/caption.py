"""The verdict in one line, for a picture's title: a capacity failure must not pass for
fragmentation there."""

from __future__ import annotations

from dataclasses import dataclass

from tilefit.model.words import counted
from tilefit.verdicts.diagnose import Diagnosis
from tilefit.verdicts.verdict import Verdict


@dataclass(frozen=True, slots=True)
class VerdictCaption:
    verdict: Verdict  # it picks the colour
    text: str


def verdict_caption(d: Diagnosis) -> VerdictCaption:
    return VerdictCaption(d.verdict, _text(d))


def _text(d: Diagnosis) -> str:
    """``CAPACITY: 16,328 B over at step 54 by the live bound, 4 overloaded windows`` and
    the like: short, since it shares the title's line. A capacity deficit's bound and
    figure are the ones its answer carries (``tilefit.bounds.capacity``), as every
    renderer gives them."""
    head = d.verdict.upper()
    if d.capacity is not None:
        windows = counted(len(d.bound.windows), "overloaded window")
        c = d.capacity
        return f"{head}: {c.over_text} by {c.bound.short}, {windows}"
    if d.verdict == Verdict.FITS:
        return f"{head}: {d.strategy} places every request"
    if d.verdict == Verdict.FRAGMENTATION:
        return f"{head}: no deficit, {d.strategy} fits"
    if d.verdict == Verdict.INFEASIBLE:
        return f"{head}: no deficit, yet no placement exists"
    return f"{head}: no deficit; nothing found in the time given"
