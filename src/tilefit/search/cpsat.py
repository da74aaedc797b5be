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
* a conflict edge: for every memory element e that either side could reach,
  one Boolean per side says "this side may touch e", at most one of the two
  is true, and a side that may not touch e lies wholly below e or wholly
  above it (a sequence side spans its first member's offset to its last
  member's end, which is contiguous, so this covers every member).

OR-Tools is an optional dependency (``pip install 'tilefit[cpsat]'``),
imported only when a model is built.
"""

from __future__ import annotations

import time
from itertools import pairwise
from typing import Any

from tilefit.model.capture import Capture, Interval, Request
from tilefit.model.placement import Placement

SOLVED = "solved"
INFEASIBLE = "infeasible"
TIMEOUT = "timeout"

INSTALL_HINT = "CP-SAT needs OR-Tools: pip install 'tilefit[cpsat]' (or 'ortools>=9.10')"


def cpsat_solve(
    capture: Capture, time_limit: float, workers: int = 2
) -> tuple[str, Placement | None, float]:
    """``(status, placement or None, seconds)``; status is solved, infeasible or timeout.

    A placement returned has passed ``tilefit.verdicts.check.check``; the seconds
    include building the model.
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
    times = [
        model.new_fixed_size_interval_var(r.start, r.end - r.start, "") for r in capture.requests
    ]
    addresses = [
        model.new_fixed_size_interval_var(offset(r.id), r.size, "") for r in capture.requests
    ]
    model.add_no_overlap_2d(times, addresses)
    for seq in capture.sequences:
        for before, after in pairwise(seq.members):
            model.add(offset(after) == offset(before) + by_id[before].size)
    _conflicts(model, capture, offset, reach)

    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.001, time_limit - (time.monotonic() - started))
    solver.parameters.num_workers = workers
    status = solver.solve(model)
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
    """Per side and element a "may touch" Boolean; the two sides of an edge never share one."""
    memory = capture.memory
    bounds = [*memory.elements, memory.size]
    elements: list[Interval] = list(pairwise(bounds))
    by_id = capture.request_by_id
    touch: dict[tuple[str, int], Any] = {}

    def side_span(ident: str) -> tuple[Any, Any, int, int]:
        """The side's lowest byte and end as expressions, and bounds on where they can be."""
        members = capture.members(ident)
        first, last = members[0], members[-1]
        low = reach[first][0]
        high = reach[last][1] + by_id[last].size
        return offset(first), offset(last) + by_id[last].size, low, high

    def may_touch(ident: str, e: int) -> Any:
        if (ident, e) not in touch:
            lo_expr, hi_expr, low, high = side_span(ident)
            start, end = elements[e]
            flag = model.new_bool_var(f"touch_{ident}_{e}")
            if end <= low or high <= start:  # out of reach: it never touches e
                model.add(flag == 0)
            else:
                below = model.new_bool_var("")
                above = model.new_bool_var("")
                model.add(hi_expr <= start).only_enforce_if(below)
                model.add(lo_expr >= end).only_enforce_if(above)
                model.add_bool_or([flag, below, above])
            touch[(ident, e)] = flag
        return touch[(ident, e)]

    for edge in capture.conflicts:
        for e in range(len(elements)):
            model.add(may_touch(edge.a, e) + may_touch(edge.b, e) <= 1)
