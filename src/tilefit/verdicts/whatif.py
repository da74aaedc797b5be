"""What if: the bound and the verdict of a capture before and after some edits.

"Reduce the staging footprint by 16 KiB" is tested here without recompiling:
the edits (``tilefit.model.edits``) give the capture the compiler would
produce, and both captures are diagnosed. The overloaded windows of the two
are matched by the steps they share, since an edit may make a window vanish,
shrink, move, split in two or appear.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tilefit.bounds.overload import Window
from tilefit.model.capture import Capture
from tilefit.model.edits import Edit, edit_capture
from tilefit.verdicts.diagnose import Diagnosis, diagnose

DEFAULT_TIME_LIMIT = 10.0  # seconds for each of the two diagnoses' search, as diagnose's


@dataclass(frozen=True, slots=True)
class AppliedEdit:
    """An edit, and the requests it touched (none for a capacity edit)."""

    edit: Edit
    requests: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WindowMatch:
    """Overloaded windows before and after that share steps, as indices into each side's list.

    One of each: the window stayed (it may have grown, shrunk or moved a little);
    none after: it vanished; none before: it appeared; several on a side: it
    split, or windows merged.
    """

    before: tuple[int, ...]
    after: tuple[int, ...]


@dataclass(frozen=True)
class WhatIf:
    edited: Capture  # the capture after every edit
    edits: tuple[AppliedEdit, ...]  # in the order applied
    before: Diagnosis
    after: Diagnosis
    windows: tuple[WindowMatch, ...]  # every window of both sides once, in time order

    @property
    def fits(self) -> bool:
        """Does a placement of the edited capture exist (and was one found)?"""
        return self.after.verdict.places


def what_if(
    capture: Capture,
    edits: Iterable[Edit],
    *,
    time_limit: float = DEFAULT_TIME_LIMIT,
    workers: int | None = None,
) -> WhatIf:
    """Apply the edits in order and diagnose the capture before and after.

    Each diagnosis gets ``time_limit`` seconds for its search (so the two may
    take twice that), so that "before" says what ``tilefit diagnose`` says.
    An edit that names nothing, or would break the capture format, raises
    InputError at its place, before anything is diagnosed.
    """
    edits = tuple(edits)
    edited, touched = edit_capture(capture, edits)
    applied = [AppliedEdit(edit, ids) for edit, ids in zip(edits, touched, strict=True)]
    before = diagnose(capture, time_limit=time_limit, workers=workers)
    after = diagnose(edited, time_limit=time_limit, workers=workers)
    return WhatIf(
        edited=edited,
        edits=tuple(applied),
        before=before,
        after=after,
        windows=match_windows(before.bound.windows, after.bound.windows),
    )


def match_windows(before: tuple[Window, ...], after: tuple[Window, ...]) -> tuple[WindowMatch, ...]:
    """Group the windows of two captures by shared steps (connected by overlap), in time order."""
    # Windows of one side are disjoint and in time order, so a sweep joins each
    # window to the group of the last one it overlaps.
    spans = sorted(
        [(w.start, w.end, 0, k) for k, w in enumerate(before)]
        + [(w.start, w.end, 1, k) for k, w in enumerate(after)]
    )
    groups: list[tuple[int, list[int], list[int]]] = []  # (end, before, after)
    for start, end, side, k in spans:
        if groups and start < groups[-1][0]:
            last_end, b, a = groups[-1]
            groups[-1] = (max(last_end, end), b, a)
        else:
            groups.append((end, [], []))
        (groups[-1][2] if side else groups[-1][1]).append(k)
    return tuple(WindowMatch(tuple(b), tuple(a)) for _, b, a in groups)
