"""The verdict in one line, for a picture's title: a capacity failure must not pass for
fragmentation there."""

from __future__ import annotations

from dataclasses import dataclass

from tilefit.verdicts.diagnose import Diagnosis


@dataclass(frozen=True, slots=True)
class VerdictCaption:
    verdict: str  # fits, fragmentation, capacity, ...: it picks the colour
    text: str


def verdict_caption(d: Diagnosis) -> VerdictCaption:
    return VerdictCaption(d.verdict, _text(d))


def _text(d: Diagnosis) -> str:
    """``CAPACITY: 16,328 B over at step 54, 4 overloaded windows`` and the like: short,
    since it shares the title's line."""
    head = d.verdict.upper()
    report = d.bound
    if d.verdict == "capacity":
        plain = report.deficit >= report.support_deficit
        over = report.deficit if plain else report.support_deficit
        step = report.peak_step if plain else report.support.step
        count = len(report.windows)
        windows = f"{count} overloaded window{'s' if count != 1 else ''}"
        meeting = report.meeting_deficit
        if meeting > max(over, report.aligned_deficit):  # only a circle's arcs show it
            return f"{head}: {meeting:,} B over in arcs that meet pairwise, {windows}"
        if report.aligned_deficit > over:  # only the padding alignment forces shows it
            return f"{head}: {report.aligned_deficit:,} B over with alignment padding, {windows}"
        return f"{head}: {over:,} B over at step {step}, {windows}"
    if d.verdict == "fits":
        return f"{head}: {d.strategy} places every request"
    if d.verdict == "fragmentation":
        return f"{head}: no deficit, {d.strategy} fits"
    if d.verdict == "infeasible":
        return f"{head}: no deficit, yet no placement exists"
    return f"{head}: no deficit; nothing found in the time given"
