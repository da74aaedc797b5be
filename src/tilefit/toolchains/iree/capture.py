"""One static transient pack as a capture, and IREE's own layout of it as a placement.

One request per slice, named ``s<i>`` after its place in the pack (the
offset IREE computes for it is the pack's result ``i + 1``) and labelled with
the value, its lifetime and the command that writes it. Step t of the capture
is op position t of the execution region: a slice living ``[a, b]`` (both ends
inclusive) is the request ``[a, b + 1)``. Sizes are rounded up to the range
alignment and offsets must be multiples of the offset alignment, as IREE's
packer rounds them; the memory is IREE's slab (or ``capacity``).
"""

from __future__ import annotations

from dataclasses import dataclass

from tilefit.model.capture import Capture, Request
from tilefit.model.placement import Placement
from tilefit.toolchains.base import Allocator
from tilefit.toolchains.iree.greedy import Layout, align, pack_greedily
from tilefit.toolchains.iree.packs import Pack
from tilefit.toolchains.iree.uses import Use

TOOL = "IREE"
PLAN = "slab"
# tilefit's nearest strategy to IREE's packer (the pack's order is its slices'
# lifetime order; the smallest gap that fits); IREE's own offsets are the placement.
PRODUCTION = ("lifetime/best-fit",)
ALLOCATOR = Allocator(TOOL, PLAN, PRODUCTION)


@dataclass(frozen=True, slots=True)
class Alignment:
    """IREE's resource alignments for a pack (``#stream.resource_config``)."""

    offset: int = 64  # min_buffer_offset_alignment
    range: int = 64  # min_buffer_range_alignment


def request_id(index: int) -> str:
    return f"s{index}"


def slice_index(request: str) -> int | None:
    """The slice a request id names (None: not one of ours)."""
    digits = request[1:]
    if not request.startswith("s") or not digits.isdigit() or digits != str(int(digits)):
        return None
    return int(digits)


def capture_name(stem: str, pack: Pack) -> str:
    return f"{stem}.{pack.function}.{pack.ordinal}"


def make_capture(
    name: str,
    pack: Pack,
    uses: list[Use],
    source: str,
    alignment: Alignment,
    capacity: int | None = None,
) -> tuple[Capture, Placement, Layout]:
    """The capture of a static pack, IREE's placement of it and IREE's layout."""
    layout = pack_greedily(pack.slices, alignment.offset, alignment.range)
    requests = []
    for piece, use in zip(pack.slices, uses, strict=True):
        assert piece.size is not None
        made = use.writer or "no command writes it here"
        if use.location is not None:
            made += f" ({use.location})"
        requests.append(
            Request(
                id=request_id(piece.index),
                size=align(piece.size, alignment.range),
                start=piece.first,
                end=piece.last + 1,
                alignment=alignment.offset,
                label=f"{pack.result(piece.index + 1)} [{piece.first}, {piece.last}] "
                f"{piece.size_name} = {piece.size} B, by {made}, read {use.readers}x",
                source=use.location or use.writer or pack.function,
            )
        )
    capture = ALLOCATOR.capture(
        name, requests, layout.slab, source, least=alignment.range, capacity=capacity
    )
    placed = {request_id(s.index): o for s, o in zip(pack.slices, layout.offsets, strict=True)}
    return capture, Placement(name, placed), layout
