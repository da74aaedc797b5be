"""Proofs from single steps: the requests alive at one step must fit on their own.

The **step relaxation** at step t keeps every block with a piece alive at t,
and of it only those pieces, each taken to live at t alone. It asks less than
the capture, piece by piece:

- overlaps at other steps are dropped (two pieces alive at t still overlap);
- a block keeps its valid bases (range, class, interleaved region, alignment,
  sequence contiguity and the conflicts inside it are properties of the base,
  whatever the step), so a sequence stays one rigid block: of its alive
  pieces, the longest run lying back to back, its bases shifted to the run's
  first piece (the kernel takes a rigid block to fill its whole span);
- conflict edges between two blocks are kept when both sides start where
  their block now starts, and dropped otherwise (dropping asks less; a side
  keeps its own byte span, since conflicts hold whatever the step).

So every placement of the capture gives one of the step relaxation, and when
the canonical kernel (complete here: every block is rigid, every side starts
at its base) proves a step infeasible, no placement of the capture exists.
The blocks of such a step are a small core a deletion filter can shrink
quickly, where the whole capture is too large to exhaust.
"""

from __future__ import annotations

from dataclasses import replace

from tilefit.bounds.live import live_steps
from tilefit.model.deadline import Deadline
from tilefit.search.blocks import Block, Piece, SearchModel
from tilefit.search.exact.route import proven
from tilefit.search.exact.solve import Budget, search_model
from tilefit.search.outcome import Outcome
from tilefit.search.params import DEFAULT, SearchParams
from tilefit.search.problem import Problem
from tilefit.search.proof import Proof
from tilefit.search.routes import INFEASIBLE, SOLVED


def step_model(model: SearchModel, step: int) -> SearchModel:
    """The step relaxation of ``model`` at ``step`` (blocks renumbered in model order)."""
    keep: list[int] = []
    shift: dict[int, int] = {}
    blocks: list[Block] = []
    for k, block in enumerate(model.blocks):
        run = _longest_run([p for p in block.pieces if p.start <= step < p.end])
        if not run:
            continue
        at = run[0].offset
        moved = tuple(replace(p, offset=p.offset - at, start=step, end=step + 1) for p in run)
        keep.append(k)
        shift[k] = at
        blocks.append(
            replace(
                block,
                pieces=moved,
                size=sum(p.size for p in run),
                start=step,
                end=step + 1,
                residue=(block.residue + at) % block.modulus,
                bases=tuple((lo + at, hi + at) for lo, hi in block.bases),
            )
        )
    new = {old: k for k, old in enumerate(keep)}
    edges = tuple(
        replace(
            e,
            a=replace(e.a, block=new[e.a.block], offset=0),
            b=replace(e.b, block=new[e.b.block], offset=0),
        )
        for e in model.edges
        if e.a.block in new
        and e.b.block in new
        and e.a.offset == shift[e.a.block]
        and e.b.offset == shift[e.b.block]
    )
    return SearchModel(model.name, tuple(blocks), edges, model.elements, model.top)


def _longest_run(pieces: list[Piece]) -> list[Piece]:
    """The alive pieces that lie back to back and hold the most bytes (ties: the lowest).

    The kernel takes a rigid block to occupy all of ``[base, base + size)``, so a
    block may keep only pieces without a gap between them: the others are
    dropped, which asks less again.
    """
    best: list[Piece] = []
    run: list[Piece] = []
    for p in sorted(pieces, key=lambda p: p.offset):
        if run and p.offset != run[-1].offset + run[-1].size:
            run = []
        run.append(p)
        if sum(q.size for q in run) > sum(q.size for q in best):
            best = list(run)
    return best


def loaded_steps(model: SearchModel) -> list[int]:
    """One step per distinct set of live pieces, most bytes alive first (ties: earlier)."""
    swept = live_steps((p.start, p.end, p.size) for b in model.blocks for p in b.pieces)
    return [t for _, t in sorted((-live, t) for t, live in swept[:-1])]


def groups(model: SearchModel) -> list[frozenset[int]]:
    """Small subsets of a step model's blocks where a core hides, smallest first.

    A subset of an infeasible-to-place set need not be infeasible, but when a
    subset is, so is the whole; these are the usual suspects: the blocks with
    one allowed set (one class in one region), the blocks aligned to each
    large modulus, and each group of blocks joined by conflict edges.
    """
    by_bases: dict[object, set[int]] = {}
    for k, b in enumerate(model.blocks):
        by_bases.setdefault(b.bases, set()).add(k)
    out = [frozenset(ks) for ks in by_bases.values() if len(ks) > 1]
    for modulus in sorted({b.modulus for b in model.blocks if b.modulus > 1}):
        out.append(frozenset(k for k, b in enumerate(model.blocks) if b.modulus >= modulus))
    linked: dict[int, set[int]] = {}
    for e in model.edges:
        group = linked.get(e.a.block, {e.a.block}) | linked.get(e.b.block, {e.b.block})
        for k in group:
            linked[k] = group
    out += [frozenset(g) for g in {id(g): g for g in linked.values()}.values()]
    unique = {g for g in out if 1 < len(g) < len(model.blocks)}
    return sorted(unique, key=lambda g: (len(g), sorted(g)))


def prove_by_steps(
    model: SearchModel, deadline: Deadline, params: SearchParams = DEFAULT
) -> SearchModel | None:
    """A step relaxation (or a part of one) proven infeasible before ``deadline``, or None.

    The candidates are the usual suspects of every loaded step (``groups``),
    then the whole steps, most loaded first; rounds go over those still
    undecided with node allowances that double (from
    ``params.portfolio.step_first_nodes``). A candidate whose live pieces
    are a subset of a solved one's is not asked (a subset of a placeable set
    is placeable: the same bases keep fewer pieces apart).
    """
    pending: list[SearchModel] = []
    seen: set[frozenset[tuple[str, tuple[str, ...]]]] = set()
    wholes: list[SearchModel] = []
    for step in loaded_steps(model):
        if deadline.passed():  # thousands of steps of a large capture take long
            break
        whole = step_model(model, step)
        wholes.append(whole)
        for group in groups(whole):
            part = whole.restricted(group)
            if _signature(part) not in seen:
                seen.add(_signature(part))
                pending.append(part)
    pending += wholes
    solved: list[frozenset[tuple[str, tuple[str, ...]]]] = []
    nodes = params.portfolio.step_first_nodes
    while pending and not deadline.passed():
        left: list[SearchModel] = []
        for candidate in pending:
            signature = _signature(candidate)
            if any(signature <= done for done in solved):
                continue
            budget = Budget(deadline, nodes, params)
            status = search_model(candidate, budget).status
            if status == INFEASIBLE:
                return candidate
            if status == SOLVED:
                solved.append(signature)
            else:
                left.append(candidate)
            if deadline.passed():
                return None
        pending = left
        nodes *= 2
    return None


def _signature(model: SearchModel) -> frozenset[tuple[str, tuple[str, ...]]]:
    """The blocks and the live pieces they keep (the same recur from step to step)."""
    return frozenset((b.id, tuple(p.request for p in b.pieces)) for b in model.blocks)


class Steps(Proof):
    """The requests alive at one step must fit on their own."""

    name = "steps"
    rank = 30
    proves, places = True, False
    says = "the requests alive at one step cannot be placed together"

    def run(self, problem: Problem, deadline: Deadline, params: SearchParams) -> Outcome | None:
        share = deadline.share(params.portfolio.step_share)
        core = prove_by_steps(problem.model, share, params)
        return None if core is None else proven(problem, core, Steps, deadline, params)
