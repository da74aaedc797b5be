"""A capture as a CP-SAT model: the yardstick the exact search is measured against.

The published model for offset assignment, with tilefit's constraints added:

* every request has one fixed time interval ``[start, end)`` and one address
  interval ``[offset, offset + size)``, all in one ``AddNoOverlap2D``: two
  requests living at a common step get disjoint addresses;
* ``offset = alignment * k``, with k ranging over the pieces of the request's
  allowed set (ranges open to its class, from the interleaved offset when it
  is interleaved) where the whole request fits;
* sequence members are tied: member k+1's offset is member k's offset plus
  member k's size;
* a conflict edge: each side's first and last memory element are integers
  (the element boundaries at or below its lowest and its last byte, one
  Boolean per boundary it can straddle), and one side's last element lies
  below the other's first (a sequence side spans its first member's offset to
  its last member's end, which is contiguous, so this covers every member).
  One Boolean per side and element ("may touch") was 8 times slower on a
  316-request tile with 30 edges.

OR-Tools is a dependency (the search's route ``cpsat``, ``tilefit.search.sat``, has a
model of its own on the search's blocks), imported only when a model is built.
"""

from __future__ import annotations

import time
from itertools import pairwise
from typing import Any

from tilefit.model.arcs import request_pieces
from tilefit.model.capture import Capture, Request
from tilefit.model.placement import Placement
from tilefit.search.routes import INFEASIBLE, SOLVED, TIMEOUT

INSTALL_HINT = "CP-SAT needs OR-Tools: pip install 'ortools>=9.13'"


def cpsat_solve(
    capture: Capture, time_limit: float, workers: int = 2
) -> tuple[str, Placement | None, float]:
    """``(status, placement or None, seconds)``; status is solved, infeasible or timeout.

    A placement returned is the solver's assignment read back, not checked here: the
    callers referee it with ``tilefit.verdicts.check.check`` (``benchmarks/hard_tiles.py``
    and ``benchmarks/hard_regimes.py`` count an invalid one as wrong, ``tests/peers/test_cpsat.py``
    asserts it valid). The seconds include building the model.
    """
    try:
        from ortools.sat.python import cp_model
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(INSTALL_HINT) from error

    started = time.monotonic()
    model = cp_model.CpModel()
    slots: dict[str, tuple[Any, int]] = {}  # request id -> (k, alignment): offset = alignment * k
    reach: dict[str, tuple[int, int]] = {}  # request id -> its lowest and highest offset
    for r in capture.requests:
        pieces = _slots(capture, r)
        if not pieces:  # no aligned offset anywhere in its allowed set
            return INFEASIBLE, None, time.monotonic() - started
        k = model.new_int_var_from_domain(cp_model.Domain.from_intervals(pieces), f"k_{r.id}")
        slots[r.id] = (k, r.alignment)
        reach[r.id] = (r.alignment * pieces[0][0], r.alignment * pieces[-1][1])

    def offset(ident: str) -> Any:
        k, alignment = slots[ident]
        return alignment * k

    by_id = capture.request_by_id
    # A lifetime wrapping around a cyclic capture's circle is two boxes at one offset.
    boxes = [(r, lo, hi) for r in capture.requests for lo, hi in request_pieces(r, capture.horizon)]
    times = [model.new_fixed_size_interval_var(lo, hi - lo, "") for _, lo, hi in boxes]
    addresses = [model.new_fixed_size_interval_var(offset(r.id), r.size, "") for r, _, _ in boxes]
    model.add_no_overlap_2d(times, addresses)
    for seq in capture.sequences:
        for before, after in pairwise(seq.members):
            model.add(offset(after) == offset(before) + by_id[before].size)
    _conflicts(model, capture, offset, reach)

    from tilefit.search.sat.route import solve_interruptibly

    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.001, time_limit - (time.monotonic() - started))
    solver.parameters.num_workers = workers
    status = solve_interruptibly(solver, model)  # Ctrl-C is Python's, as in route cpsat
    seconds = time.monotonic() - started
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        offsets = {r.id: r.alignment * solver.value(slots[r.id][0]) for r in capture.requests}
        return SOLVED, Placement(capture.name, offsets), seconds
    if status == cp_model.INFEASIBLE:
        return INFEASIBLE, None, seconds
    if status == cp_model.MODEL_INVALID:
        raise RuntimeError(f"internal error: invalid CP-SAT model: {model.validate()}")
    return TIMEOUT, None, seconds


def _slots(capture: Capture, r: Request) -> list[list[int]]:
    """Intervals of k (inclusive) with ``alignment * k`` a valid start inside the allowed set."""
    pieces: list[list[int]] = []
    for lo, hi in capture.memory.allowed(r.cls, r.interleaved):
        first = -(-lo // r.alignment)
        last = (hi - r.size) // r.alignment
        if first <= last:
            pieces.append([first, last])
    return pieces


def _conflicts(
    model: Any, capture: Capture, offset: Any, reach: dict[str, tuple[int, int]]
) -> None:
    """Each side's first and last element as integers; one side lies wholly below the other."""
    memory = capture.memory
    bounds = [b for b in memory.elements if b > 0]  # inner element boundaries, ascending
    by_id = capture.request_by_id
    span: dict[str, tuple[Any, Any]] = {}

    def index_of(expr: Any, low: int, high: int) -> Any:
        """The element holding the address ``expr`` (in [low, high]): boundaries at or below it."""
        flags = []
        for b in bounds:
            if b <= low:
                flags.append(1)
            elif b > high:
                flags.append(0)
            else:
                flag = model.new_bool_var("")
                model.add(expr >= b).only_enforce_if(flag)
                model.add(expr < b).only_enforce_if(~flag)
                flags.append(flag)
        return sum(flags)

    def side(ident: str) -> tuple[Any, Any]:
        """The first and last element the side's bytes touch (a sequence spans its members)."""
        if ident not in span:
            members = capture.members(ident)
            first, last = members[0], members[-1]
            size = by_id[last].size
            lo = index_of(offset(first), reach[first][0], reach[first][1])
            hi = index_of(
                offset(last) + size - 1, reach[last][0] + size - 1, reach[last][1] + size - 1
            )
            span[ident] = (lo, hi)
        return span[ident]

    for edge in capture.conflicts:
        lo_a, hi_a = side(edge.a)
        lo_b, hi_b = side(edge.b)
        a_below = model.new_bool_var("")
        b_below = model.new_bool_var("")
        model.add(hi_a < lo_b).only_enforce_if(a_below)
        model.add(hi_b < lo_a).only_enforce_if(b_below)
        model.add_bool_or([a_below, b_below])
