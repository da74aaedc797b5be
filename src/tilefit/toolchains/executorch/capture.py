"""One ExecuTorch arena as a capture, and ExecuTorch's greedy plan of it as a placement.

- One request per spec that owns bytes: a spec without a ``storage_base``
  (its *root*) and a size above zero. Its id is the FX node's name, its label
  the node's op, dtype and shape (and the aliases it holds). It lives during
  steps ``[first, last + 1)``: ExecuTorch's lifetimes are inclusive on the FX
  node index. Its size is ``allocated_memory`` (already rounded to the
  alignment), its offsets multiples of the alignment.
- A spec with a ``storage_base`` (an alias: in-place ops, shared
  allocations) is no request: it sits at its root's offset plus the
  ``storage_base_offset`` of every link up to the root, and its root lives
  over its lifetime too (ExecuTorch extends the base's lifetime already; the
  capture takes the union again, so that a list recorded before that step
  still gives a safe capture).
- A zero-byte spec (batch norm's unused outputs) holds nothing: it is no
  request, and the plan puts it at offset 0 of the plan.
- Offsets are relative to the plan's start: ExecuTorch reserves the bytes
  of control-flow submodules ahead of it (``Program.reserved_in``), and adds
  ``extra_padding`` after it.

A spec tilefit cannot honour (its ``problem`` set by the reader: a dynamic
shape without a bound, an alias it cannot follow) makes the whole arena
keep greedy's plan: ``ArenaCapture.problem`` names the node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tilefit.model.capture import Capture, Request
from tilefit.model.placement import Placement
from tilefit.toolchains.base import Allocator
from tilefit.toolchains.executorch.specs import Program, Spec

TOOL = "ExecuTorch"
PLAN = "arena"  # what ExecuTorch calls the block it plans (a mem_id's buffer)
# tilefit's nearest strategy to ExecuTorch's greedy (largest first into shared objects);
# greedy's own offsets are the placement beside the capture
PRODUCTION = ("size/first-fit",)
ALLOCATOR = Allocator(TOOL, PLAN, PRODUCTION)


@dataclass(frozen=True, slots=True)
class Alias:
    root: str  # the request it sits in
    offset: int  # bytes into the root


@dataclass(frozen=True)
class ArenaCapture:
    """One arena: its capture (None when nothing in it holds bytes), greedy's placement,
    and where every other spec goes."""

    mem_id: int
    capture: Capture | None
    greedy: Placement | None  # greedy's offsets, relative to the plan's start
    greedy_top: int  # the top of greedy's plan (relative), 0 when unknown
    aliases: Mapping[str, Alias]  # spec id -> its root and offset in it
    empty: tuple[str, ...]  # zero-byte specs: offset 0
    specs: int  # every spec of the arena
    problem: str | None = None  # why tilefit keeps greedy's plan here: one line naming the node


def arena_name(program: Program, mem_id: int) -> str:
    return f"{program.name}.arena{mem_id}"


def arena_capture(program: Program, mem_id: int, specs: Sequence[Spec]) -> ArenaCapture:
    """The capture of one arena's specs (all of one mem_id, aliases included)."""
    name = arena_name(program, mem_id)
    known = {s.id: s for s in specs}
    problem = next((_named(s, s.problem) for s in specs if s.problem is not None), None)
    aliases: dict[str, Alias] = {}
    for spec in specs:
        if spec.base is None or problem is not None:
            continue
        found = _follow(spec, known, program.alignment)
        if isinstance(found, str):
            problem = _named(spec, found)
        else:
            aliases[spec.id] = found
    roots = [s for s in specs if s.base is None]
    empty = tuple(s.id for s in roots if s.size == 0)
    held = [s for s in roots if s.size > 0]
    base = program.reserved_in(mem_id)
    greedy_top = 0
    greedy: Placement | None = None
    if all(s.greedy is not None for s in held):
        offsets = {s.id: int(s.greedy) - base for s in held if s.greedy is not None}
        greedy = Placement(name, offsets)
        greedy_top = max((offsets[s.id] + s.size for s in held), default=0)
    if problem is None:
        problem = _misread(aliases, known)
    if problem is None:
        problem = next(
            (_named(s, p) for s in held if (p := _unaligned(s, program)) is not None), None
        )
    if not held:
        return ArenaCapture(mem_id, None, greedy, 0, aliases, empty, len(specs), problem)
    life = {s.id: [s.first, s.last] for s in held}
    for spec_id, alias in aliases.items():
        span = life.get(alias.root)  # none for a zero-byte root: its aliases hold nothing
        if span is not None:
            spec = known[spec_id]
            span[0], span[1] = min(span[0], spec.first), max(span[1], spec.last)
    requests = tuple(
        Request(
            id=s.id,
            size=s.size,
            start=life[s.id][0],
            end=life[s.id][1] + 1,
            alignment=program.alignment,
            label=_label(s, [a for a, where in aliases.items() if where.root == s.id]),
        )
        for s in held
    )
    heap = greedy_top if greedy is not None else sum(s.size for s in held)
    source = f"{program.name} mem_id {mem_id}"
    capture = ALLOCATOR.capture(name, requests, heap, source, least=program.alignment)
    return ArenaCapture(mem_id, capture, greedy, greedy_top, aliases, empty, len(specs), problem)


def _misread(aliases: Mapping[str, Alias], known: Mapping[str, Spec]) -> str | None:
    """Where greedy's offsets put an alias elsewhere than its root's offset plus its own."""
    for spec_id, alias in aliases.items():
        mine, root = known[spec_id].greedy, known[alias.root].greedy
        if mine is not None and root is not None and mine != root + alias.offset:
            return _named(
                known[spec_id],
                f"greedy puts it at {mine}, not {alias.offset} B into {alias.root} at {root} "
                "(unknown aliasing)",
            )
    return None


def _named(spec: Spec, why: str) -> str:
    op = f" ({spec.op})" if spec.op else ""
    return f"node {spec.id}{op}: {why}"


def _unaligned(spec: Spec, program: Program) -> str | None:
    if spec.size % program.alignment:
        return f"its size {spec.size} is not a multiple of the alignment {program.alignment}"
    return None


def _follow(spec: Spec, known: Mapping[str, Spec], alignment: int) -> Alias | str:
    """The root an alias sits in and its offset there, or why it cannot be followed."""
    offset = spec.base_offset
    seen = {spec.id}
    at = spec
    while at.base is not None:
        base = known.get(at.base)
        if base is None:
            return f"its storage_base {at.base} is not planned in this arena (unknown aliasing)"
        if base.id in seen:
            return "its storage_base chain is circular (unknown aliasing)"
        seen.add(base.id)
        if at is not spec:
            offset += at.base_offset
        at = base
    if spec.base_offset < 0 or offset < 0:
        return "a negative storage_base_offset (unknown aliasing)"
    if offset % alignment:
        return f"it sits {offset} B into its base, off the alignment {alignment} (unknown aliasing)"
    if offset + spec.size > at.size:
        return (
            f"its {spec.size} B at {offset} B into {at.id} overrun that base's {at.size} B "
            "(unknown aliasing)"
        )
    return Alias(at.id, offset)


def _label(spec: Spec, held: Sequence[str]) -> str:
    shape = "x".join(str(d) for d in spec.shape) or "scalar"
    what = " ".join(p for p in (spec.op, spec.dtype, shape) if p)
    if held:
        more = f" and {len(held) - 3} more" if len(held) > 3 else ""
        what += f"; holds {', '.join(held[:3])}{more} (storage_base)"
    return what
