"""What a TPU-MLIR capture says of its layer group, written by the import into the
capture's ``origin.source`` and read back by ``diagnose`` and ``batch``.

A capture names its tensors by TPU-MLIR's names (the requests' ids) and its period is
the group's timesteps; what it lacks is the group itself. The import writes it as one
line of ``; ``-separated parts (docs/tpumlir.md, section 6)::

    layer group add9_Add, relu13_Relu; slices 1,1,1,1,1; ended with slices 1,1,1,2,1;
    its allocator failed, 2 tensors unplaced

(one line, cut here): the group's ops (the tensors they write, in the group's order),
the slices tried (``shape_secs``: n, c, d, h, w), the slices the group ended with
(``outcome``; ``no later plan in the trace`` where no later attempt placed it: TPU-MLIR
gave it up, or the trace is cut short of it) and what the allocator did. A part not
there is not known (``layer group`` is left out where the trace does not show the group).
"""

from __future__ import annotations

from dataclasses import dataclass

from tilefit.model.capture import Capture
from tilefit.model.errors import InputError
from tilefit.model.words import counted
from tilefit.toolchains.tpumlir.attempt import Attempt
from tilefit.toolchains.tpumlir.outcome import group_ops, slices_cost
from tilefit.toolchains.tpumlir.slices import Slices

TOOL = "TPU-MLIR"
_GROUP = "layer group "
_SLICES = "slices "
_ENDED = "ended with slices "
_GIVEN_UP = "no later plan in the trace"
_DIMENSIONS = (("n", "batch"), ("c", "channels"), ("d", "depth"), ("h", "height"), ("w", "width"))


@dataclass(frozen=True, slots=True)
class GroupWords:
    """A TPU-MLIR capture's group as its origin says it."""

    ops: tuple[str, ...] | None  # the group's ops, by the tensors they write (None: not shown)
    tried: Slices | None  # the slices of this attempt
    ended: Slices | None  # the slices the group ended with (None: given up, or not known)
    given_up: bool  # no later attempt of the trace placed the group
    said: str  # what the allocator did, as the import said it

    @property
    def cost(self) -> int | None:
        """How many more slices the group ended with than this attempt tried."""
        if self.tried is None:
            return None
        return slices_cost(self.tried, self.ended)


def origin_text(attempt: Attempt, ended: Slices | None, said: str) -> str:
    """The line the import writes into ``origin.source`` (module docstring)."""
    ops = group_ops(attempt)
    parts = [] if ops is None else [_GROUP + ", ".join(ops)]
    parts.append(f"{_SLICES}{attempt.slices}")
    if not attempt.success:
        parts.append(_GIVEN_UP if ended is None else f"{_ENDED}{ended}")
    parts.append(said)
    return "; ".join(parts)


def group_words(capture: Capture) -> GroupWords | None:
    """What a TPU-MLIR capture's origin says of its group; None for another capture."""
    origin = capture.origin
    if origin is None or origin.tool != TOOL or origin.source is None:
        return None
    ops: tuple[str, ...] | None = None
    tried = ended = None
    given_up = False
    said = []
    for part in origin.source.split("; "):
        if part.startswith(_GROUP):
            ops = tuple(part.removeprefix(_GROUP).split(", "))
        elif part.startswith(_ENDED):
            ended = _slices(part.removeprefix(_ENDED))
        elif part == _GIVEN_UP:
            given_up = True
        elif part.startswith(_SLICES):
            tried = _slices(part.removeprefix(_SLICES))
        else:
            said.append(part)
    return GroupWords(ops, tried, ended, given_up, "; ".join(said))


def _slices(text: str) -> Slices | None:
    try:
        return Slices.parse(text, "origin.source")
    except InputError:  # free text written by hand: not TPU-MLIR's words
        return None


def cut_text(slices: Slices) -> str:
    """``slices 1,1,1,2,1 (h, the height, cut in 2)``: which dimensions were cut."""
    counts = (slices.n, slices.c, slices.d, slices.h, slices.w)
    cut = [
        f"{short}, the {long}, cut in {count}"
        for (short, long), count in zip(_DIMENSIONS, counts, strict=True)
        if count > 1
    ]
    return f"slices {slices} ({'; '.join(cut) if cut else 'nothing cut'})"


def cut_json(slices: Slices) -> dict[str, int]:
    """The dimensions cut and into how many slices each (``{"h": 2}``)."""
    counts = (slices.n, slices.c, slices.d, slices.h, slices.w)
    return {short: c for (short, _), c in zip(_DIMENSIONS, counts, strict=True) if c > 1}


def ended_text(words: GroupWords) -> str | None:
    """What the group ended with, beside the slices tried (None: not known)."""
    if words.given_up:
        return (
            "no later attempt of the trace placed this group (TPU-MLIR gave it up, or the "
            "trace is cut short of it)"
        )
    if words.ended is None or words.cost is None:
        return None
    more = (
        "the slices tried"
        if words.cost == 0
        else f"{counted(words.cost, 'slice')} more than tried"
        if words.cost > 0
        else f"{counted(-words.cost, 'slice')} fewer than tried"
    )
    return f"the group ended with slices {words.ended} ({more})"
