"""Route ``sink``: the lowest greedy pass lowered by moving what it put above a target.

Minimising a uniform capture, the least rung (``tilefit.verdicts.searching``) ends its
greedy passes a little above the live bound (pangu_2.6B: 40 MiB, +0.76%, for every
peer as for tilefit). What a pass puts above the bound at its busiest step equals the
holes it left below it there; the route moves it into them, and re-places what that
displaces by CP-SAT around everything else:

1. the target: the lower bound first, then, while that fails, halfway up to the best
   top (a failure proves nothing, so the bracket's lower end stays the bound's);
2. the overhang sunk below the target (``tilefit.search.local.overhang``), each request
   where it evicts the fewest bytes x steps;
3. the evicted requests, in clusters of those whose lifetimes come within a margin of
   each other, each placed again with the requests that start or end nearest them in
   time (the shortest-lived first among those as near; those merely passing through
   last), up to each size of ``SinkParams.neighbourhoods`` in turn
   (``tilefit.search.sat.neighbourhood``), all others held.

The closest rung runs it too, from the closest placement, with the memory's top as its
first target: at the top, a placement of the tile.

A placement is taken when every request lies below the target; it is refereed at the
ladder's exit as every placement is. Nothing here knows a trace: the cost, the clusters
and the neighbourhoods are read from lifetimes and sizes alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tilefit.model.placement import Placement
from tilefit.search.local.overhang import sink
from tilefit.search.params import Tuned, ruled
from tilefit.search.routes import LEAST, Route
from tilefit.search.sat.neighbourhood import replace_free

if TYPE_CHECKING:
    from tilefit.engine.uniform import Ints, UniformArrays
    from tilefit.model.capture import Capture
    from tilefit.model.deadline import Deadline


@dataclass(frozen=True)
class SinkParams(Tuned):
    """Route ``sink`` (``tilefit.search.sat.sink``; switched off as a route, ``Routes``)."""

    share: float = ruled(0.3, "share")
    """Of the least rung's time left after its greedy passes, and of the closest rung's
    time, what the route may take (it ends in a second or two where it works: pangu_2.6B's
    49 requests above the bound)."""
    neighbourhoods: tuple[int, ...] = ruled((32, 128, 512), "whole")
    """The requests CP-SAT places again around a cluster of evicted ones, tried in turn
    (a cluster larger than a size is tried whole)."""
    most_over: int = ruled(4096, "whole")
    """The most requests above a target the route moves (more: the target is too low)."""
    workers: int = ruled(1, "whole")
    """CP-SAT's threads. One: CP-SAT is then deterministic, so the same capture in the same
    time gives the same placement (pangu_2.6B's neighbourhood: 0.2 s with one thread)."""


class Sink(Route):
    """The lowest greedy pass lowered: what it puts above a target sunk into the holes
    below, what that displaces placed again by CP-SAT (``sink``). Not a route of the
    portfolio: the ladder's least rung runs it on a uniform capture, from the lowest
    pass, and its closest rung, from the closest placement, the memory's top its first
    target (``tilefit.verdicts.searching``)."""

    name = "sink"
    member = LEAST
    rank = 20
    proves, places = False, True
    says = (
        "the requests above a target top sunk into the holes below it, what they displace "
        "placed again by CP-SAT"
    )
    tuning = SinkParams


@dataclass(frozen=True)
class Sank:
    """The lowest placement the route found, its top, and the targets it tried."""

    placement: Placement
    top: int
    tries: int


def lower(
    capture: Capture,
    uniform: UniformArrays,
    start: Placement,
    floor: int,
    deadline: Deadline,
    params: SinkParams,
) -> Sank | None:
    """A placement with a lower top than ``start`` (of every request) by ``deadline``, or
    None: targets from ``floor`` (the lower bound) up, each halfway between the highest
    that failed and the best top."""
    offsets = np.fromiter((start.offsets[r.id] for r in capture.requests), np.int64)
    best = offsets
    best_top = int((offsets + uniform.sizes).max())
    failed = floor - 1  # the highest target tried without success
    tries = 0
    found = False
    while failed + 1 < best_top and not deadline.passed():
        target = floor if tries == 0 else (failed + best_top) // 2
        tries += 1
        placed = _at(uniform, best, target, deadline, params)
        if placed is None:
            failed = target
            continue
        best, best_top, found = placed, int((placed + uniform.sizes).max()), True
    if not found:
        return None
    ids = [r.id for r in capture.requests]
    placement = Placement(capture.name, dict(zip(ids, best.tolist(), strict=True)))
    return Sank(placement, best_top, tries)


def _at(
    uniform: UniformArrays, offsets: Ints, target: int, deadline: Deadline, params: SinkParams
) -> Ints | None:
    """``offsets`` with every request below ``target``, or None."""
    if np.count_nonzero(offsets + uniform.sizes > target) > params.most_over:
        return None
    sunk = sink(uniform, offsets, target, deadline.passed)
    if sunk is None:
        return None
    placed: Ints | None = sunk.offsets
    for cluster in _clusters(uniform, sunk.evicted):
        if placed is None:
            break
        placed = _replaced(uniform, placed, cluster, sunk.evicted, target, deadline, params)
    return placed


def _replaced(
    uniform: UniformArrays,
    offsets: Ints,
    evicted: Ints,
    stale: Ints,
    target: int,
    deadline: Deadline,
    params: SinkParams,
) -> Ints | None:
    """``offsets`` with the cluster ``evicted`` placed again below ``target``, each
    neighbourhood of ``params`` tried in turn, or None. The ``stale`` requests (evicted,
    this cluster's and others', not yet placed again) are no obstacle."""
    starts, ends = uniform.starts, uniform.ends
    first, last = int(starts[evicted].min()), int(ends[evicted].max())
    margin = max(2, last - first)
    near = np.flatnonzero((starts < last + margin) & (first - margin < ends))
    near = near[~np.isin(near, stale)]
    nearness = _distance(starts[near], ends[near], first, last)
    near = near[np.lexsort((ends[near] - starts[near], nearness))]  # nearest, shortest first
    ignored = stale[~np.isin(stale, evicted)]
    for size in params.neighbourhoods:
        if deadline.passed():
            return None
        free = np.sort(np.concatenate((evicted, near[: max(0, size - len(evicted))])))
        placed = replace_free(uniform, offsets, free, target, deadline, params.workers, ignored)
        if placed is not None:
            return placed
    return None


def _distance(starts: Ints, ends: Ints, first: int, last: int) -> Ints:
    """Steps from the nearer of each lifetime's two ends to the span [first, last] (0: it
    starts or ends inside): requests that come or go beside the evicted ones are moved
    first, those merely passing through (held wherever they cross) last."""
    out: Ints = np.minimum(_apart(starts, first, last), _apart(ends, first, last))
    return out


def _apart(steps: Ints, first: int, last: int) -> Ints:
    out: Ints = np.maximum(0, np.maximum(first - steps, steps - last))
    return out


def _clusters(uniform: UniformArrays, evicted: Ints) -> list[Ints]:
    """``evicted`` in groups whose lifetimes come within their own length of each other
    (placed again one group at a time), earliest first."""
    if len(evicted) == 0:
        return []
    starts, ends = uniform.starts, uniform.ends
    order = evicted[np.argsort(starts[evicted], kind="stable")]
    groups: list[list[int]] = [[int(order[0])]]
    reach = int(ends[order[0]])
    began = int(starts[order[0]])
    for k in order[1:].tolist():
        if starts[k] <= reach + (reach - began):
            groups[-1].append(k)
            reach = max(reach, int(ends[k]))
        else:
            groups.append([k])
            began, reach = int(starts[k]), int(ends[k])
    return [np.array(sorted(g), np.int64) for g in groups]
