"""The rigid restriction: a neighbour of a model that asks more, which the canonical
kernel searches without enumerating pinned blocks (completion and repair search
around the blocks they keep in it).

The canonical search is complete only for rigid blocks whose conflict sides
start at the block's base (see ``tilefit.search.blocks``). The restriction has
only such blocks: every piece of a block is taken to live over the block's
whole lifetime (its hull), and every conflict side spans its whole block.
Every placement of the restriction is a placement of the capture (same bases,
same piece offsets), so a solution is an answer; its infeasibility proves
nothing.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from tilefit.search.blocks import Edge, SearchModel, Side


def rigid_restriction(model: SearchModel, exact: Collection[int] = ()) -> SearchModel:
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
