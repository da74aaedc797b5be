"""The split relaxation: a neighbour of a model that asks less, and that the canonical
kernel decides alone.

Every sequence member is placed on its own (contiguity dropped), conflicts kept
member by member, so the model has only rigid blocks (see
``tilefit.search.blocks``). Every placement of the capture is one of the
relaxation, so its infeasibility is a proof; a solution is an answer only when
it happens to keep every sequence contiguous (``contiguous`` says so). Its
mirror, which asks more, is ``tilefit.search.local.restriction``.
"""

from __future__ import annotations

from tilefit.model.capture import Capture
from tilefit.model.placement import Placement
from tilefit.model.units import split_sequences
from tilefit.search.blocks import Model, build_model


def split_relaxation(capture: Capture, top: int | None = None) -> Model:
    """The model of the capture with every sequence split into independent members."""
    return build_model(split_sequences(capture), top)


def contiguous(capture: Capture, placement: Placement) -> bool:
    """Whether every sequence's members sit back to back: all that a placement of the
    split relaxation may break (conflicts were kept member by member)."""
    offsets = placement.offsets
    by_id = capture.request_by_id
    return all(
        offsets[b] == offsets[a] + by_id[a].size
        for seq in capture.sequences
        for a, b in zip(seq.members, seq.members[1:], strict=False)
    )
