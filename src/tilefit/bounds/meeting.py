"""The heaviest set of pairwise-meeting requests: a cyclic capture's clique bound.

Requests whose lifetimes pairwise meet need pairwise disjoint bytes, so their
total size is a lower bound on the storage any placement uses. On a line,
pairwise-meeting intervals share a step (Helly), so this is the busiest step's
load and adds nothing. On a circle it can exceed every step's load: arcs
``{3, 0}``, ``{0, 1}``, ``{1, 2, 3}`` on a circle of 4 steps meet pairwise and
no step holds all three.

The exact maximum (a maximum-weight clique of a circular-arc graph) in
polynomial time, from one observation: in a set K of pairwise-meeting arcs,
those without step 0 are intervals of the line ``[1, T)`` that meet pairwise,
so they share a step q. Hence K lies inside ``A0 + Aq``: the arcs holding step
0, and the arcs holding q but not 0. Each of those two is itself a clique, so
in the graph on ``A0 + Aq`` the pairs that do *not* meet form a bipartite
graph between them, and the heaviest clique is the total weight less a
minimum-weight vertex cover of that bipartite graph, which is a minimum cut
(König, weighted): source to each arc of A0 at its size, each non-meeting
pair at infinity, each arc of Aq to the sink at its size. q need only range
over the starts of arcs without step 0 (the arcs holding q are among those
holding the latest start at or before it). ``tests/test_cyclic_bounds.py``
checks it against every subset of small captures.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from tilefit.model.capture import Capture, Request


@dataclass(frozen=True, slots=True)
class Meeting:
    """The heaviest set of requests whose lifetimes pairwise meet."""

    weight: int  # their total size
    ids: tuple[str, ...]  # in capture order

    def deficit(self, available: int) -> int:
        return max(0, self.weight - available)


def heaviest_meeting(capture: Capture) -> Meeting:
    """The heaviest set of pairwise-meeting requests (exact, on the circle where
    something wraps; on a line it is a busiest step's requests)."""
    requests = capture.requests
    at_zero = [k for k, r in enumerate(requests) if _holds_zero(r)]
    rest = [k for k, r in enumerate(requests) if not _holds_zero(r)]
    best = (sum(requests[k].size for k in at_zero), tuple(at_zero))
    zero_weight = best[0]
    for q in sorted({requests[k].start for k in rest}):
        around = [k for k in rest if requests[k].start <= q < requests[k].end]
        if zero_weight + sum(requests[k].size for k in around) <= best[0]:
            continue
        weight, chosen = _heaviest_of_two(requests, at_zero, around)
        if weight > best[0]:
            best = (weight, chosen)
    return Meeting(best[0], tuple(requests[k].id for k in sorted(best[1])))


def _holds_zero(r: Request) -> bool:
    return r.start == 0 or r.end <= r.start


def _heaviest_of_two(
    requests: tuple[Request, ...], left: list[int], right: list[int]
) -> tuple[int, tuple[int, ...]]:
    """The heaviest clique of ``left + right``, each side a clique: the total weight less
    a minimum vertex cover of the bipartite graph of pairs that do not meet."""
    apart = [
        [j for j, b in enumerate(right) if not requests[a].lives_with(requests[b])] for a in left
    ]
    total = sum(requests[k].size for k in left) + sum(requests[k].size for k in right)
    if not any(apart):
        return total, (*left, *right)
    cut, reached = _min_cut(
        [requests[k].size for k in left], [requests[k].size for k in right], apart
    )
    chosen = [k for i, k in enumerate(left) if i in reached[0]]
    chosen += [k for j, k in enumerate(right) if j not in reached[1]]
    return total - cut, tuple(chosen)


def _min_cut(
    left: list[int], right: list[int], apart: list[list[int]]
) -> tuple[int, tuple[set[int], set[int]]]:
    """Minimum cut of source -> left (capacity ``left[i]``) -> right (unbounded, along
    ``apart``) -> sink (capacity ``right[j]``), by augmenting shortest paths; with the
    left and right nodes the source still reaches in the residual graph."""
    n_left, n_right = len(left), len(right)
    source, sink = n_left + n_right, n_left + n_right + 1
    capacity: dict[tuple[int, int], int] = {}
    edges: list[list[int]] = [[] for _ in range(n_left + n_right + 2)]

    def link(u: int, v: int, cap: int | None) -> None:
        capacity[u, v] = capacity.get((u, v), 0) + (cap if cap is not None else sum(left) + 1)
        capacity.setdefault((v, u), 0)
        edges[u].append(v)
        edges[v].append(u)

    for i, size in enumerate(left):
        link(source, i, size)
        for j in apart[i]:
            link(i, n_left + j, None)
    for j, size in enumerate(right):
        link(n_left + j, sink, size)
    flow = 0
    while True:
        parent = _path(edges, capacity, source, sink)
        if sink not in parent:
            break
        v, push = sink, None
        while v != source:
            u = parent[v]
            push = capacity[u, v] if push is None else min(push, capacity[u, v])
            v = u
        assert push is not None
        v = sink
        while v != source:
            u = parent[v]
            capacity[u, v] -= push
            capacity[v, u] += push
            v = u
        flow += push
    reach = set(parent)
    return flow, (
        {i for i in range(n_left) if i in reach},
        {j for j in range(n_right) if n_left + j in reach},
    )


def _path(
    edges: list[list[int]], capacity: dict[tuple[int, int], int], source: int, sink: int
) -> dict[int, int]:
    """Breadth first through edges with room left: each node reached -> whence."""
    parent = {source: source}
    todo = deque([source])
    while todo and sink not in parent:
        u = todo.popleft()
        for v in edges[u]:
            if v not in parent and capacity[u, v] > 0:
                parent[v] = u
                todo.append(v)
    return parent
