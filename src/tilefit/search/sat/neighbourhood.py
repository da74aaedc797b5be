"""A few requests placed again around all the others, held where they are, by CP-SAT:
the second half of route ``sink``.

The requests held (every one but the free ones) matter only where a free one lives, and
there only as the bytes they take: between two consecutive starts or ends of free
requests (a *segment*), a free request alive in it is alive all through it, so it must
miss every byte any held request takes at any step of it. The held requests become, per
segment, the merged spans they take there (*obstacles*), a span that goes on unchanged
into the next segment one obstacle for both: around a few hundred free requests on
pangu_2.6B, 18,692 requests make about 2,000 obstacles.

The model: each free request's offset an aligned integer in [low, top - size], hinted at
its offset now; each a rectangle, its lifetime by its bytes, every obstacle a fixed one,
all in one ``AddNoOverlap2D``. Only its solutions are taken (each is refereed again at the
ladder's exit): an infeasible answer or none in time says only that this neighbourhood
did not do, never that no placement exists (``tilefit.search.sat.route`` says why CP-SAT's
proofs are not taken).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from tilefit.engine.uniform import Ints, UniformArrays
    from tilefit.model.deadline import Deadline

Obstacle = tuple[int, int, int, int]  # bytes [lo, hi) over steps [start, end)


def obstacles(
    uniform: UniformArrays, offsets: Ints, free: Ints, ignored: Ints | None = None
) -> list[Obstacle]:
    """The bytes the requests held (neither ``free`` nor ``ignored``) take where a free one
    lives, as the merged spans of each segment, a span unchanged from one segment to the
    next joined."""
    starts, ends, sizes = uniform.starts, uniform.ends, uniform.sizes
    held = _held(len(sizes), free, ignored)
    times = np.unique(np.concatenate((starts[free], ends[free])))
    near = np.flatnonzero(held & (starts < times[-1]) & (times[0] < ends) & (sizes > 0))
    out: list[Obstacle] = []
    running: dict[tuple[int, int], int] = {}  # span -> the start of its obstacle
    for a, b in zip(times[:-1].tolist(), times[1:].tolist(), strict=True):
        if not ((starts[free] < b) & (a < ends[free])).any():
            spans: list[tuple[int, int]] = []
        else:
            spans = _merged(offsets, sizes, near[(starts[near] < b) & (a < ends[near])])
        now = {}
        for span in spans:
            now[span] = running.pop(span, a)
        out.extend((lo, hi, began, a) for (lo, hi), began in running.items())
        running = now
    out.extend((lo, hi, began, int(times[-1])) for (lo, hi), began in running.items())
    return out


def _merged(offsets: Ints, sizes: Ints, which: Ints) -> list[tuple[int, int]]:
    """The spans [offset, offset + size) of ``which``, merged where they touch or meet."""
    if len(which) == 0:
        return []
    lows = offsets[which]
    order = np.argsort(lows, kind="stable")
    lows, highs = lows[order], (lows + sizes[which])[order]
    reach = np.maximum.accumulate(highs)
    new = np.ones(len(lows), np.bool_)
    new[1:] = lows[1:] > reach[:-1]
    firsts = np.flatnonzero(new)
    lasts = np.append(firsts[1:], len(lows)) - 1
    return list(zip(lows[firsts].tolist(), reach[lasts].tolist(), strict=True))


def _held(count: int, free: Ints, ignored: Ints | None) -> NDArray[np.bool_]:
    held = np.ones(count, np.bool_)
    held[free] = False
    if ignored is not None:
        held[ignored] = False
    return held


def replace_free(
    uniform: UniformArrays,
    offsets: Ints,
    free: Ints,
    top: int,
    deadline: Deadline,
    workers: int,
    ignored: Ints | None = None,
) -> Ints | None:
    """``offsets`` with the ``free`` requests placed again below ``top`` around the others
    held where they are (each of which must lie below ``top``), or None when CP-SAT finds
    no such placement by ``deadline``. The ``ignored`` requests are neither placed nor in
    the way (their offsets are stale: the caller places them again)."""
    if len(free) == 0:
        return offsets.copy()
    from ortools.sat.python import cp_model

    starts, ends, sizes, aligns = uniform.starts, uniform.ends, uniform.sizes, uniform.alignments
    held = _held(len(sizes), free, ignored)
    if np.any(held & (offsets + sizes > top)):
        raise ValueError(f"a request held where it is reaches above the top {top}")
    model = cp_model.CpModel()
    xs: list[Any] = []
    ys: list[Any] = []
    ks: list[Any] = []
    for k in free.tolist():
        a = int(aligns[k])
        first, most = -(-uniform.low // a), (top - int(sizes[k])) // a
        if first > most:
            return None
        var = model.new_int_var(first, most, f"k{k}")
        model.add_hint(var, min(max(int(offsets[k]) // a, first), most))
        ks.append(var)
        lifetime = int(ends[k] - starts[k])
        xs.append(model.new_fixed_size_interval_var(int(starts[k]), lifetime, f"t{k}"))
        ys.append(model.new_fixed_size_interval_var(var * a, int(sizes[k]), f"b{k}"))
    for n, (lo, hi, start, end) in enumerate(obstacles(uniform, offsets, free, ignored)):
        xs.append(model.new_fixed_size_interval_var(start, end - start, f"ot{n}"))
        ys.append(model.new_fixed_size_interval_var(lo, hi - lo, f"ob{n}"))
    model.add_no_overlap_2d(xs, ys)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.01, deadline.at - time.monotonic())
    solver.parameters.num_workers = workers
    status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    placed = offsets.copy()
    for k, var in zip(free.tolist(), ks, strict=True):
        placed[k] = solver.value(var) * int(aligns[k])
    return placed
