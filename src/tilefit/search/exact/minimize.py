"""The lowest memory top at which a placement exists: ``minimize``.

The memory top T is the end address of the highest byte. For a capture with
several ranges, lowering T shrinks the available storage from the top: every
range is cut at T, so the answer is the least prefix [0, T) of the address
space that still holds a placement under every constraint.

The first probe is at the lower bound, then the bisection. A probe that times out
proves nothing: the answer is then the interval
[lower bound, best top found], with the best placement found, never a
time-out taken for infeasibility. The lower bound counts the padding that
alignment forces between the live requests (``tilefit.bounds.aligned``), so a
best top that reaches it is proven optimal without a probe below it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from tilefit.bounds.top import top_lower_bound
from tilefit.model.deadline import Deadline
from tilefit.model.placement import Placement, placement_top
from tilefit.search.blocks import build_model
from tilefit.search.exact.solve import Budget, search_model
from tilefit.search.outcome import Least, Outcome
from tilefit.search.problem import Problem
from tilefit.search.routes import INFEASIBLE, SOLVED, TIMEOUT, Status


def minimize(
    problem: Problem,
    deadline: Deadline,
    *,
    node_limit: int | None = None,
    first: Placement | None = None,
    on_probe: Callable[[int, int, int], None] | None = None,
    probes: int | None = None,
    bound_first: bool = True,
    bound_share: float = 1 / 3,
    lower: int = 0,
    found_by: str | None = None,
) -> Outcome:
    """The lowest top by ``deadline`` (and within ``node_limit`` nodes over all probes).

    ``first``, a valid placement found already (``tilefit solve`` asks the portfolio),
    is the first upper bound; without it the exact search finds one at the full top.
    ``on_probe(lower, best, top)`` hears of each probe before it runs: the least top lies
    in ``[lower, best]``, and ``top`` is asked (``tilefit solve``'s progress line).
    ``probes``: at most that
    many probes; ``bound_first``: the first probe at the lower bound, for ``bound_share`` of
    the time left (real programs' lifetimes mostly admit a placement at their live bound,
    MiniMalloc probes there first too, and one found there ends the search, proven); else
    the bisection from the start, for a caller that probed there already. ``lower``: a
    lower bound the caller proved (``tilefit.search.proofs.least``), if above the capture's.
    ``found_by``: the route that found ``first``, if a route did (the exact search's
    without ``first``); the outcome names the route of its placement, the exact search's
    once a probe found one.
    """
    from tilefit.search.exact.route import Exact

    started = time.monotonic()
    capture = problem.capture
    began = time.monotonic()
    model = problem.model
    lower = max(lower, top_lower_bound(capture, model.lowest_tops()))
    nodes = 0
    # A probe's model and the kernel's tables are built before its search can stop: a
    # probe starts only when its share of the time left exceeds what that took the last
    # time (seconds, on a capture of tens of thousands of requests). A probe below the
    # model's top builds a model of its own, about as long as the problem's took: on
    # S_1 under three busy loops that build ran 5 s past the deadline (issue 48).
    setup = max(time.monotonic() - began, problem.built.get("model", 0.0))

    def probe(top: int, share: float) -> tuple[Status, Placement | None]:
        nonlocal nodes, setup
        left = None if node_limit is None else max(0, node_limit - nodes)
        built = time.monotonic()
        probe_model = model if top >= model.top else build_model(capture, top)
        modelled = time.monotonic() - built
        budget = Budget(deadline.until(time.monotonic() + deadline.left() * share), left)
        outcome = search_model(probe_model, budget)
        setup = max(setup, modelled + budget.setup)
        nodes += budget.nodes
        if outcome.bases is None:
            return outcome.status, None
        return outcome.status, probe_model.placement(capture, outcome.bases)

    def result(status: Status, best: int | None, placement: Placement | None) -> Outcome:
        decided = Exact.name if status == INFEASIBLE else by
        return Outcome(
            status=status,
            placement=placement,
            route=None if status == TIMEOUT else decided,
            least=Least(lower, best),
            seconds=time.monotonic() - started,
            nodes=nodes,
        )

    placement = first
    by = found_by
    if placement is None:
        by = Exact.name
        status, placement = probe(model.top, 1.0)
        if placement is None:
            return result(INFEASIBLE if status == INFEASIBLE else TIMEOUT, None, None)
    best = placement_top(capture, placement.offsets)
    probe_from = lower
    at_bound = bound_first  # the first probe: at the bound itself
    asked = 0
    while probe_from < best and (probes is None or asked < probes):
        asked += 1
        share = bound_share if at_bound else 0.5
        if deadline.left() * share <= setup:
            break
        if node_limit is not None and nodes >= node_limit:
            break
        mid = probe_from if at_bound else (probe_from + best - 1) // 2
        if on_probe is not None:
            on_probe(lower, best, mid)
        status, found = probe(mid, share)
        at_bound = False
        if found is not None:
            placement, best = found, placement_top(capture, found.offsets)
            by = Exact.name
        elif status == INFEASIBLE:
            lower = max(lower, mid + 1)
            probe_from = max(probe_from, lower)
        else:  # timed out: look higher, where a placement may come quicker
            probe_from = mid + 1
    return result(SOLVED, best, placement)
