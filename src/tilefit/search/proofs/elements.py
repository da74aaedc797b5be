"""Proofs from memory elements: conflicting requests cannot share one.

Conflict edges hold whatever the lifetimes, so a set of sides in conflict
with each other (a clique) must touch pairwise disjoint sets of memory
elements. Each side touches at least one element (two when it is longer than
every element it may touch), and every element it touches lies in its
*reach*: the elements some valid base of its block lets it touch. When the
sides of a clique need more elements than their reaches hold together, no
placement exists. This is the pigeonhole the canonical search would find
only by trying every assignment.
"""

from __future__ import annotations

from tilefit.model.deadline import Deadline
from tilefit.search.blocks import SearchModel, Side
from tilefit.search.exact.route import proven
from tilefit.search.outcome import Outcome
from tilefit.search.params import SearchParams
from tilefit.search.problem import Problem
from tilefit.search.proof import Proof

SideKey = tuple[int, int, int]  # block, offset, size


def clique_core(model: SearchModel) -> frozenset[int] | None:
    """Blocks whose conflicting sides need more memory elements than they can reach, or None."""
    neighbours: dict[SideKey, set[SideKey]] = {}
    for edge in model.edges:
        a, b = _key(edge.a), _key(edge.b)
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    reach = {side: _reach(model, side) for side in neighbours}
    for seed in sorted(neighbours, key=lambda s: (-len(neighbours[s]), s)):
        clique = _grow(seed, neighbours)
        if len(clique) < 2:
            continue
        elements: set[int] = set()
        for side in clique:
            elements |= reach[side]
        need = sum(_need(model, side, reach[side]) for side in clique)
        if need > len(elements):
            return frozenset(side[0] for side in clique)
    return None


def _key(side: Side) -> SideKey:
    return side.block, side.offset, side.size


def _grow(seed: SideKey, neighbours: dict[SideKey, set[SideKey]]) -> list[SideKey]:
    """A maximal clique around ``seed``, adding the best-connected candidate first."""
    clique = [seed]
    candidates = set(neighbours[seed])
    while candidates:
        best = max(candidates, key=lambda s: (len(neighbours[s] & candidates), s))
        clique.append(best)
        candidates &= neighbours[best]
    return clique


def _reach(model: SearchModel, side: SideKey) -> set[int]:
    """The memory elements a side can touch at some valid base of its block."""
    block, offset, size = side
    out: set[int] = set()
    for lo, hi in model.blocks[block].bases:
        first = model.element(lo + offset)
        last = model.element(hi + offset + size - 1)
        out.update(range(first, last + 1))
    return out


def _need(model: SearchModel, side: SideKey, reach: set[int]) -> int:
    """Elements the side touches at least: one, or two when no element it reaches holds it."""
    size = side[2]
    if not reach:  # no valid base at all: it still needs one
        return 1
    widest = max(model.elements[e + 1] - model.elements[e] for e in reach)
    return 1 if size <= widest else 2


class Elements(Proof):
    """A clique of conflicting requests needing more memory elements than they reach."""

    name = "elements"
    rank = 10
    proves, places = True, False
    says = "requests in conflict with each other need more memory elements than they reach"

    def run(self, problem: Problem, deadline: Deadline, params: SearchParams) -> Outcome | None:
        clique = clique_core(problem.model)
        if clique is None:
            return None
        return proven(problem, problem.model.restricted(clique), Elements, deadline, params)
