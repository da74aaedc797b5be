"""Two neighbours of a model that the canonical kernel decides alone, with no pinned blocks.

The canonical search is complete only for rigid blocks whose conflict sides
start at the block's base (see ``tilefit.search.model``). Two models bracket
the real one and have only such blocks:

- the **rigid restriction** asks more: every piece of a block is taken to
  live over the block's whole lifetime (its hull), and every conflict side
  spans its whole block. Every placement of the restriction is a placement of
  the capture (same bases, same piece offsets), so a solution is an answer;
  its infeasibility proves nothing.
- the **split relaxation** asks less: every sequence member is placed on its
  own (contiguity dropped), conflicts kept member by member. Every placement
  of the capture is one of the relaxation, so its infeasibility is a proof;
  a solution is an answer only when it happens to keep every sequence
  contiguous (the referee says so).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from tilefit.model.capture import Capture
from tilefit.model.units import split_sequences
from tilefit.search.model import Edge, Model, Side, build_model


def rigid_restriction(model: Model, exact: Collection[int] = ()) -> Model:
    """The model with every block rigid over its hull and every conflict side whole,
    except the blocks numbered in ``exact`` and the edges touching them, kept as they are
    (blocks standing at fixed bases, around which the others are searched)."""
    blocks = tuple(
        b
        if k in exact or b.rigid
        else replace(b, pieces=tuple(replace(p, start=b.start, end=b.end) for p in b.pieces))
        for k, b in enumerate(model.blocks)
    )
    seen: set[tuple[int, int]] = set()
    edges: list[Edge] = []
    for edge in model.edges:
        if edge.a.block in exact or edge.b.block in exact:
            edges.append(edge)  # a side at a fixed base only forbids bases: exact
            continue
        a, b = sorted((edge.a.block, edge.b.block))
        if (a, b) in seen:  # two member edges of the same blocks become one whole edge
            continue
        seen.add((a, b))
        edges.append(Edge(Side(a, 0, blocks[a].size), Side(b, 0, blocks[b].size)))
    return replace(model, blocks=blocks, edges=tuple(edges))


def split_relaxation(capture: Capture, top: int | None = None) -> Model:
    """The model of the capture with every sequence split into independent members."""
    return build_model(split_sequences(capture), top)
