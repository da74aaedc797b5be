"""Proofs from the choice of stretch: a block keeps one stretch of memory all its life.

Where the memory is cut into stretches (ranges with gaps between them, an
interleaved region apart), which stretch holds a block is a choice made once
for its whole lifetime. The **choice relaxation** forgets where in its stretch
a block lies and keeps only that choice: at every step, the pieces alive in a
stretch must fit in it, and those that can only lie inside a part of it (their
class, their interleaving) must fit in that part. It is the strip-packing
relaxation that cuts items into one-step slices (Martello, Monaci and Vigo,
2003) with each slice kept in its item's bin: every placement gives a choice,
so when no choice exists, no placement does.

It sees what one step cannot: a 199 KB activation that only the largest
stretch holds at one step, interleaved activations that only the interleaved
region holds at another, and long-lived weights that cannot be split between
the two (``tilefit synth`` seed 7, tile 847: its live peak fits, and neither the
exact search nor CP-SAT settles it in minutes; this relaxation in milliseconds).
It is a 0-1 program, one variable for each block and stretch it may choose: a
greedy choice is tried first (a choice found settles it), then HiGHS
(``scipy.optimize.milp``) within a node limit and the time given. A proof's
core is shrunk with the same relaxation: first the steps, then the blocks.

A stretch is a maximal run of the addresses some block may occupy (the union
of ``[lo, hi + size)`` over every block's base intervals ``[lo, hi]``), so a block
at any valid base lies inside one; a block's *hull* in a stretch is the part
of it its own bases there reach. Every constraint sums the bytes alive at one
step of the blocks whose hull lies in one interval, against its length: sound
for any set of such intervals, so only the most shared hulls are kept.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from tilefit.model.deadline import Deadline
from tilefit.search.blocks import SearchModel
from tilefit.search.exact.route import proven
from tilefit.search.outcome import Outcome
from tilefit.search.params import SearchParams, Tuned, ruled
from tilefit.search.problem import Problem
from tilefit.search.proof import Proof


@dataclass(frozen=True)
class ChoiceParams(Tuned):
    """The choice relaxation's proof (``tilefit.search.proofs.choice``)."""

    nodes: int = ruled(2_000, "whole")
    """Branch-and-bound nodes HiGHS may take on one 0-1 program: a limit of work, not of
    time, so that the answer depends on the capture alone."""
    hulls: int = ruled(8, "count")
    """Per stretch, the most shared hulls (the parts of it some blocks are confined to)
    given constraints of their own besides the whole stretch's."""
    share: float = ruled(0.1, "share")
    """Of the prove member's time, what the proof and the shrinking of its core may take."""
    table_limit: int = ruled(20_000_000, "whole")
    """Blocks x steps beyond which the proof's table (8 bytes an entry: 160 MB) is not
    built: a capture of tens of thousands of blocks over thousands of steps."""
    where_seconds: float = ruled(1.0, "positive")
    """At most this long to find the steps of a core the choice proved, for the reader (a
    few 0-1 programs of the core alone: milliseconds for tile 847's)."""


DEFAULT_CHOICE = ChoiceParams()

Span = tuple[int, int]  # addresses [start, end)


@dataclass(frozen=True)
class Choices:
    """Which stretches each block may choose, and the steps where the choice is tested."""

    stretches: tuple[Span, ...]  # ascending, disjoint
    hulls: tuple[dict[int, Span], ...]  # per block: stretch -> the hull of its bases there
    steps: tuple[int, ...]  # every step where a piece starts, ascending
    live: np.ndarray  # blocks x steps: the bytes of the block's pieces alive at the step


def choices_of(model: SearchModel, params: ChoiceParams = DEFAULT_CHOICE) -> Choices | None:
    """The stretches of ``model``'s memory and each block's hulls in them; None when no
    block has two stretches to choose from (the relaxation is then the steps' own), or
    when its table (blocks x steps) would pass ``params.table_limit`` entries."""
    choices = stretches_of(model, params)
    if choices is None or all(len(h) < 2 for h in choices.hulls):
        return None
    return choices


def stretches_of(model: SearchModel, params: ChoiceParams = DEFAULT_CHOICE) -> Choices | None:
    """The stretches, hulls and live table of ``choices_of``, whether or not any block has
    a choice to make: None where memory is one stretch (nothing to choose or split, and
    no table of blocks x steps built for it) or past ``params.table_limit`` entries."""
    spans = sorted(
        (lo, hi + block.size) for block in model.blocks for lo, hi in block.bases if lo <= hi
    )
    stretches: list[list[int]] = []
    for start, end in spans:
        if stretches and start < stretches[-1][1]:  # overlapping: one stretch
            stretches[-1][1] = max(stretches[-1][1], end)
        else:
            stretches.append([start, end])
    if len(stretches) < 2:
        return None
    starts = [s for s, _ in stretches]
    hulls: list[dict[int, Span]] = []
    for block in model.blocks:
        mine: dict[int, Span] = {}
        for lo, hi in block.bases:
            if lo > hi:
                continue
            k = int(np.searchsorted(starts, lo, side="right")) - 1
            a, b = mine.get(k, (lo, hi + block.size))
            mine[k] = (min(a, lo), max(b, hi + block.size))
        hulls.append(mine)
    steps = sorted({p.start for block in model.blocks for p in block.pieces})
    if len(hulls) * len(steps) > params.table_limit:
        return None
    live = np.zeros((len(model.blocks), len(steps)), dtype=np.int64)
    where = {t: i for i, t in enumerate(steps)}
    for k, block in enumerate(model.blocks):
        for p in block.pieces:
            first = where[p.start]
            last = int(np.searchsorted(steps, p.end, side="left"))
            live[k, first:last] += p.size
    return Choices(tuple((s, e) for s, e in stretches), tuple(hulls), tuple(steps), live)


def choice_core(
    model: SearchModel, deadline: Deadline, params: ChoiceParams = DEFAULT_CHOICE
) -> frozenset[int] | None:
    """Blocks of ``model`` that no choice of stretches holds (shrunk with the relaxation
    until the deadline), or None: a choice exists, none is needed, or time ran out."""
    choices = choices_of(model, params)
    if choices is None:
        return None
    blocks = [k for k in range(len(model.blocks)) if choices.hulls[k]]
    if len(blocks) < len(model.blocks):  # a block with no base at all: alone, no placement
        return frozenset(k for k in range(len(model.blocks)) if not choices.hulls[k])
    steps = _failing_steps(choices, blocks, deadline, params)
    if steps is None:
        return None
    alive = [k for k in blocks if choices.live[k, steps].any()]
    core = _shrink(alive, lambda b: holds(choices, b, steps, deadline, params) is False, deadline)
    return frozenset(core)


@dataclass(frozen=True)
class ChoiceWhere:
    """Where no choice of stretches holds a core: what a reader checks the proof by."""

    steps: tuple[int, ...]  # the steps no choice holds together (each alone may)
    stretches: tuple[Span, ...]  # the stretches the core's blocks may take

    @property
    def text(self) -> str:
        """The proof's place in one sentence, for ``diagnose``'s text and the report."""
        steps = [str(t) for t in self.steps]
        at = steps[0] if len(steps) == 1 else ", ".join(steps[:-1]) + " and " + steps[-1]
        spans = ", ".join(f"[{a}, {b})" for a, b in self.stretches)
        return (
            f"at step{'s' if len(steps) > 1 else ''} {at}, no choice among the stretches "
            f"{spans} holds the subset; each keeps its stretch from step to step"
        )


def where_choice_fails(
    core: SearchModel, deadline: Deadline, params: ChoiceParams = DEFAULT_CHOICE
) -> ChoiceWhere | None:
    """The steps and stretches of a core ``choice_core`` proved, or None if the relaxation
    does not fail on it (or the deadline comes first)."""
    choices = choices_of(core, params)
    if choices is None:
        return None
    blocks = [k for k in range(len(core.blocks)) if choices.hulls[k]]
    steps = _failing_steps(choices, blocks, deadline, params)
    if steps is None:
        return None
    used = sorted({s for k in blocks for s in choices.hulls[k]})
    return ChoiceWhere(
        tuple(choices.steps[i] for i in steps), tuple(choices.stretches[s] for s in used)
    )


def _failing_steps(
    choices: Choices, blocks: list[int], deadline: Deadline, params: ChoiceParams
) -> list[int] | None:
    """Indices of steps at which no choice holds ``blocks``, shrunk until the deadline
    (each removal kept while still failing), or None when a choice holds them all."""
    steps = list(range(len(choices.steps)))
    if holds(choices, blocks, steps, deadline, params) is not False:
        return None
    return _shrink(steps, lambda s: holds(choices, blocks, s, deadline, params) is False, deadline)


def holds(
    choices: Choices,
    blocks: Sequence[int],
    steps: Sequence[int],
    deadline: Deadline,
    params: ChoiceParams = DEFAULT_CHOICE,
) -> bool | None:
    """Whether some choice of stretches holds ``blocks`` at ``steps`` (indices into
    ``choices.steps``): True, False, or None when HiGHS reaches the node limit or the
    deadline first."""
    built = program(choices, blocks, steps, params)
    if built is None:
        return False  # blocks with no choice overfill a stretch already
    if greedy_choice(built) is not None:
        return True  # most tiles that fit: no 0-1 program needed
    found = solve_program(built, deadline, params)
    return None if found is None else found is not False  # a choice found (or none needed)


@dataclass(frozen=True)
class ChoiceProgram:
    """The choice relaxation as a 0-1 program: one variable for each choosing block and
    stretch it may take; each row of ``table`` (rows x variables, compressed by column)
    the bytes those choices put alive in one interval at one step, within ``limit``."""

    columns: dict[tuple[int, int], int]  # (block, stretch) -> variable
    table: Any
    limit: np.ndarray


def program(
    choices: Choices,
    blocks: Sequence[int],
    steps: Sequence[int],
    params: ChoiceParams = DEFAULT_CHOICE,
) -> ChoiceProgram | None:
    """The program of ``blocks`` at ``steps``, or None when the blocks with one stretch
    alone overfill an interval (no choice then holds them)."""
    columns: dict[tuple[int, int], int] = {}
    for k in blocks:
        if len(choices.hulls[k]) > 1:
            for s in sorted(choices.hulls[k]):
                columns[(k, s)] = len(columns)
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    values: list[np.ndarray] = []
    limits: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
    count = 0  # rows so far
    at = np.asarray(steps, dtype=np.int64)
    for s, interval, members in _intervals(choices, blocks, params):
        fixed = [k for k in members if (k, s) not in columns]
        free = [k for k in members if (k, s) in columns]
        rest = np.asarray(fixed, dtype=np.int64)
        room = (interval[1] - interval[0]) - choices.live[np.ix_(rest, at)].sum(axis=0)
        if (room < 0).any():
            return None
        load = choices.live[np.ix_(np.asarray(free, dtype=np.int64), at)]  # blocks x steps
        tight = np.flatnonzero(load.sum(axis=0) > room)  # the steps some choice overfills
        if not len(tight) or not free:
            continue
        sub = load[:, tight]
        who, when = np.nonzero(sub)
        variable = np.array([columns[(k, s)] for k in free], dtype=np.int64)
        rows.append(count + when)
        cols.append(variable[who])
        values.append(sub[who, when])
        limits.append(room[tight])
        count += len(tight)
    # scipy only where a program is built (0.5 s to import, in the member that proves, not
    # in the process that loads the portfolio: issue 48)
    from scipy.sparse import coo_array

    limit = np.concatenate(limits)
    empty = np.zeros(0, dtype=np.int64)
    table = coo_array(
        (
            np.concatenate([empty, *values]),
            (np.concatenate([empty, *rows]), np.concatenate([empty, *cols])),
        ),
        shape=(len(limit), len(columns)),
    ).tocsc()
    return ChoiceProgram(columns, table, limit)


def greedy_choice(built: ChoiceProgram) -> dict[int, int] | None:
    """Block -> stretch, choosing block by block (most bytes first) the stretch that
    leaves the most room, or None where some block then finds none: a choice found is a
    choice, so it settles the relaxation."""
    table = built.table
    room = built.limit.astype(np.int64)
    by_block: dict[int, list[tuple[int, int]]] = {}
    for (k, s), v in built.columns.items():
        by_block.setdefault(k, []).append((s, v))
    total = np.asarray(table.sum(axis=0)).ravel()
    weight = {k: max(int(total[v]) for _, v in vs) for k, vs in by_block.items()}
    chosen: dict[int, int] = {}
    for k in sorted(by_block, key=lambda b: (-weight[b], b)):
        best, best_room = -1, -1
        for s, v in by_block[k]:
            lo, hi = table.indptr[v], table.indptr[v + 1]
            left = room[table.indices[lo:hi]] - table.data[lo:hi]
            least = int(left.min()) if len(left) else int(room.max(initial=0))
            if least >= 0 and least > best_room:
                best, best_room, chosen[k] = v, least, s
        if best < 0:
            return None
        lo, hi = table.indptr[best], table.indptr[best + 1]
        room[table.indices[lo:hi]] -= table.data[lo:hi]
    return chosen


def solve_program(
    built: ChoiceProgram,
    deadline: Deadline,
    params: ChoiceParams = DEFAULT_CHOICE,
    cuts: Sequence[frozenset[tuple[int, int]]] = (),
) -> dict[int, int] | bool | None:
    """The 0-1 program: one stretch per choosing block, each row within its limit, and
    for each of ``cuts`` (sets of (block, stretch) choices never all taken together) at
    least one of its choices not taken. Block -> stretch when HiGHS finds a choice (True
    when nothing chooses), False when it proves none exists, None at its node limit or
    the deadline."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_array

    seconds = deadline.at - time.monotonic()
    if seconds <= 0:
        return None
    n = len(built.columns)
    if n == 0:
        return bool(not cuts and (built.limit >= 0).all())
    chooser = {k: i for i, k in enumerate(sorted({k for k, _ in built.columns}))}
    one = np.array([chooser[k] for k, _ in built.columns], dtype=np.int64)
    constraints = [
        LinearConstraint(
            coo_array((np.ones(n), (one, np.arange(n))), shape=(len(chooser), n)), 1, 1
        ),
    ]
    if len(built.limit):
        constraints.append(LinearConstraint(built.table, -np.inf, built.limit))
    if cuts:
        who = [(i, built.columns[c]) for i, cut in enumerate(cuts) for c in sorted(cut)]
        rows, cols = zip(*who, strict=True) if who else ((), ())
        table = coo_array((np.ones(len(who)), (rows, cols)), shape=(len(cuts), n))
        constraints.append(LinearConstraint(table, -np.inf, [len(c) - 1 for c in cuts]))
    with quiet_stdout():
        result = milp(
            np.zeros(n),
            constraints=constraints,
            integrality=np.ones(n),
            bounds=Bounds(0, 1),
            options={"node_limit": params.nodes, "time_limit": seconds},
        )
    if result.status == 0:
        taken = set(np.flatnonzero(np.asarray(result.x) > 0.5).tolist())
        return {k: s for (k, s), v in built.columns.items() if v in taken}
    return False if result.status == 2 else None


@contextmanager
def quiet_stdout() -> Iterator[None]:
    """File descriptor 1 sent to /dev/null while HiGHS runs: its MIP solver prints some
    messages straight to stdout whatever its options say (``transformNewIntegerFeasible
    Solution`` on synth seed 3's tile 1129), which would land in ``--json``'s output. The
    progress line is on stderr; a write by another thread in these milliseconds is lost."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no descriptor 1 at all: nothing to keep clean
        yield
        return
    try:
        sink = os.open(os.devnull, os.O_WRONLY)
        os.dup2(sink, 1)
        os.close(sink)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def _intervals(
    choices: Choices, blocks: Sequence[int], params: ChoiceParams
) -> list[tuple[int, Span, list[int]]]:
    """(stretch, interval, blocks whose hull there lies inside it): each whole stretch,
    and the ``params.hulls`` hulls most shared within each."""
    out: list[tuple[int, Span, list[int]]] = []
    for s, stretch in enumerate(choices.stretches):
        inside = [k for k in blocks if s in choices.hulls[k]]
        if not inside:
            continue
        out.append((s, stretch, inside))
        shared: dict[Span, int] = {}
        for k in inside:
            hull = choices.hulls[k][s]
            if hull != stretch:
                shared[hull] = shared.get(hull, 0) + 1
        for hull in sorted(shared, key=lambda h: (-shared[h], h))[: params.hulls]:
            out.append((s, hull, [k for k in inside if _within(choices.hulls[k][s], hull)]))
    return out


def _within(inner: Span, outer: Span) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def _shrink(
    items: list[int], infeasible: Callable[[list[int]], bool], deadline: Deadline
) -> list[int]:
    """A deletion filter: chunks of ``items`` dropped while ``infeasible`` of the rest
    still holds, halving the chunk down to one, until the deadline."""
    keep = list(items)
    chunk = max(1, len(keep) // 2)
    while True:
        i = 0
        while i < len(keep):
            if deadline.passed():
                return keep
            trial = keep[:i] + keep[i + chunk :]
            if trial and infeasible(trial):
                keep = trial
                continue
            i += chunk
        if chunk == 1:
            return keep
        chunk = max(1, chunk // 2)


class Choice(Proof):
    """No choice of stretches holds the blocks (each keeps one all its life). The core
    comes shrunk by the relaxation itself; the exact search's deletion filter then tries
    to show it irreducible in the time left (where it cannot, the subset stays as it is).
    ``diagnose`` reads the steps of its core again for the reader (``where_choice_fails``)."""

    name = "choice"
    rank = 20
    tuning = ChoiceParams
    proves, places = True, False
    says = (
        "each request keeps one stretch of memory all its life, and no choice of "
        "stretches holds these at every step"
    )

    def run(self, problem: Problem, deadline: Deadline, params: SearchParams) -> Outcome | None:
        model = problem.model
        tuned = params.of(ChoiceParams)
        core = choice_core(model, deadline.share(tuned.share), tuned)
        if core is None:
            return None
        return proven(problem, model.restricted(core), Choice, deadline, params)
