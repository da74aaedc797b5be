"""The search model as a CP-SAT model: route ``cpsat``'s, exact for the capture below its top.

Built from a ``SearchModel`` of the capture **extended** above its top
(``tilefit.search.closest.extended``: an overflow range open to every class, cut
into memory elements), so that a placement reaching above the top is a solution
too and the closest placement can be given whole as a hint:

* each block's base is ``modulus * k + residue``, k ranging over the block's valid
  bases (its allowed sets, its own conflict edges and the alignment of every piece,
  as ``tilefit.search.blocks`` computed them);
* each piece is one rectangle, its lifetime by its address span, all in one
  ``AddNoOverlap2D``: pieces living at a common step get disjoint bytes;
* a conflict edge between two blocks: each side's first and last memory element as
  integers (the element boundaries at or below its first and its last byte), and one
  side's last element lies below the other's first, or a side reaches above the
  capacity (the overflow's elements are not modelled: a thousand Booleans per side);
* the objective: the top, the highest byte any block reaches, at least the capacity
  (the memory's size before the extension); or (``area``) the bytes x steps of the
  blocks above the capacity, at least 0. Either is at its least exactly at a placement.

Why an optimum above the capacity is a proof: the extension adds bytes only above
the capacity (its allowed sets, element boundaries and interleaved start below it are
the capture's own), and the conflicts are relaxed only for sides above it, so the
solutions with a top at the capacity are exactly the placements of the capture; a
lower bound on the objective above its least says that there is none. Above it the model
asks less than the extended capture, so a closest placement is always a solution.
``tests/search/test_search_sat.py`` checks both sides against brute force.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tilefit.search.blocks import Block, SearchModel, Side


@dataclass(frozen=True)
class K:
    """A block's base as ``modulus * var + residue``."""

    var: Any
    modulus: int
    residue: int


@dataclass(frozen=True)
class SatModel:
    """The CP-SAT model, each block's k and the objective's least value."""

    model: Any  # cp_model.CpModel
    ks: tuple[K, ...]  # block index -> its k
    floor: int  # the objective's value at a placement of the capture, and its least

    def bases(self, value: Any) -> dict[int, int]:
        """Block index -> base, read with ``value`` (a solver's ``value``)."""
        return {n: int(k.modulus * value(k.var) + k.residue) for n, k in enumerate(self.ks)}


def build(
    search: SearchModel, capacity: int, hint: Mapping[int, int] | None, area: bool = False
) -> SatModel | None:
    """The CP-SAT model of ``search`` with the top at least ``capacity``, hinted with the
    bases ``hint`` (every block's, or None), minimising the top (``area``: the bytes x
    steps above the capacity); None when a block has no valid base (the caller's other
    routes say so)."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    ks: list[K] = []
    for n, block in enumerate(search.blocks):
        steps = _steps(block)
        if not steps:
            return None
        var = model.new_int_var_from_domain(cp_model.Domain.from_intervals(steps), f"k{n}")
        ks.append(K(var, block.modulus, block.residue))
        if hint is not None:
            model.add_hint(var, (hint[n] - block.residue) // block.modulus)

    def base(n: int) -> Any:
        return ks[n].modulus * ks[n].var + ks[n].residue

    times, spans = [], []
    for n, block in enumerate(search.blocks):
        for piece in block.pieces:
            times.append(
                model.new_fixed_size_interval_var(piece.start, piece.end - piece.start, "")
            )
            spans.append(model.new_fixed_size_interval_var(base(n) + piece.offset, piece.size, ""))
    model.add_no_overlap_2d(times, spans)
    _Conflicts(model, search, capacity, base, hint).add()
    if area:
        floor = _overflow_area(model, search, capacity, base, hint)
    else:
        floor = _top(model, search, capacity, base, hint)
    return SatModel(model, tuple(ks), floor)


def _top(
    model: Any, search: SearchModel, capacity: int, base: Any, hint: Mapping[int, int] | None
) -> int:
    """Minimise the top, at least the capacity (what it is at a placement)."""
    top = model.new_int_var(capacity, max(capacity, search.top), "top")
    for n, block in enumerate(search.blocks):
        model.add(top >= base(n) + block.size)
    if hint is not None:
        reached = max((hint[n] + b.size for n, b in enumerate(search.blocks)), default=0)
        model.add_hint(top, max(capacity, reached))
    model.minimize(top)
    return capacity


def _overflow_area(
    model: Any, search: SearchModel, capacity: int, base: Any, hint: Mapping[int, int] | None
) -> int:
    """Minimise the bytes x steps of the blocks above the capacity (0 at a placement):
    a solution closer to a placement scores better even where the top stays."""
    terms = []
    for n, block in enumerate(search.blocks):
        reach = block.bases[-1][1] + block.size - capacity
        if reach <= 0:
            continue
        over = model.new_int_var(0, reach, "")
        model.add(over >= base(n) + block.size - capacity)
        if hint is not None:
            model.add_hint(over, max(0, hint[n] + block.size - capacity))
        terms.append(over * (block.end - block.start))
    model.minimize(sum(terms))
    return 0


def _steps(block: Block) -> list[list[int]]:
    """The intervals of k (inclusive) whose base ``modulus * k + residue`` is valid."""
    m, r = block.modulus, block.residue
    out: list[list[int]] = []
    for lo, hi in block.bases:
        first, last = -(-(lo - r) // m), (hi - r) // m
        if first <= last:
            out.append([first, last])
    return out


class _Conflicts:
    """Each conflict edge's two sides in disjoint runs of memory elements, or one side
    above the capacity."""

    def __init__(
        self,
        model: Any,
        search: SearchModel,
        capacity: int,
        base: Any,
        hint: Mapping[int, int] | None,
    ) -> None:
        self.model, self.search, self.capacity = model, search, capacity
        self.base, self.hint = base, hint
        # The element boundaries inside the capture's memory, ascending.
        self.bounds = [b for b in search.elements if 0 < b < capacity]
        self.span: dict[Side, tuple[Any, Any]] = {}

    def add(self) -> None:
        for edge in self.search.edges:
            lo_a, hi_a = self.side(edge.a)
            lo_b, hi_b = self.side(edge.b)
            either = [
                self.flag(hi_a < lo_b, self._below(edge.a, edge.b)),
                self.flag(hi_b < lo_a, self._below(edge.b, edge.a)),
            ]
            for side in (edge.a, edge.b):
                if self._reach(side) >= self.capacity:
                    last = self.base(side.block) + side.offset + side.size - 1
                    either.append(self.flag(last >= self.capacity, self._over(side)))
            self.model.add_bool_or(either)

    def _reach(self, side: Side) -> int:
        """The highest byte the side may reach."""
        return self.search.blocks[side.block].bases[-1][1] + side.offset + side.size - 1

    def _element(self, address: int) -> int:
        return sum(1 for b in self.bounds if b <= address)

    def _below(self, low: Side, high: Side) -> bool | None:
        """Whether, at the hint, ``low``'s last element lies below ``high``'s first."""
        if self.hint is None:
            return None
        last = self._element(self.hint[low.block] + low.offset + low.size - 1)
        return last < self._element(self.hint[high.block] + high.offset)

    def _over(self, side: Side) -> bool | None:
        """Whether, at the hint, the side's last byte lies above the capacity."""
        if self.hint is None:
            return None
        return self.hint[side.block] + side.offset + side.size - 1 >= self.capacity

    def flag(self, holds: Any, hinted: bool | None) -> Any:
        """A Boolean that implies ``holds``, hinted as it is at the hint."""
        flag = self.model.new_bool_var("")
        self.model.add(holds).only_enforce_if(flag)
        if hinted is not None:
            self.model.add_hint(flag, hinted)
        return flag

    def side(self, side: Side) -> tuple[Any, Any]:
        """The first and last element the side's bytes touch, as expressions."""
        if side not in self.span:
            block = self.search.blocks[side.block]
            low, high = block.bases[0][0], block.bases[-1][1]
            first = self.index(side.block, side.offset, low, high)
            last = self.index(side.block, side.offset + side.size - 1, low, high)
            self.span[side] = (first, last)
        return self.span[side]

    def index(self, n: int, offset: int, low: int, high: int) -> Any:
        """The element holding the byte ``offset`` above block ``n``'s base (the base in
        ``[low, high]``): the boundaries at or below it (the overflow one element)."""
        at = self.base(n) + offset
        count: list[Any] = []
        for b in self.bounds:
            if b <= low + offset:
                count.append(1)
            elif b > high + offset:
                count.append(0)
            else:
                flag = self.model.new_bool_var("")
                self.model.add(at >= b).only_enforce_if(flag)
                self.model.add(at < b).only_enforce_if(~flag)
                if self.hint is not None:
                    self.model.add_hint(flag, self.hint[n] + offset >= b)
                count.append(flag)
        return sum(count)
