"""A part's memory banks, fastest first: does each arena fit in each, and if not, what must spill.

A bank's capacity holds the whole arena as ExecuTorch sizes it: the bytes
reserved ahead of the plan, the plan, and ``extra_padding``; the plan gets
what is left (its *room*). The verdict, per arena and bank:

- ``fits``: ExecuTorch's greedy plan already fits;
- ``fragmentation``: greedy's plan does not, another does (tilefit's least
  plan, or the one ``diagnose`` finds), and it is given;
- ``capacity``: no plan can fit (``diagnose``'s proof: the live bytes, or
  their padding, exceed the room), with the tensors, by FX node, live where
  it overflows and how many bytes of them must spill to the next bank;
- ``infeasible`` or ``undetermined``, as ``diagnose`` says.

tilefit does not move tensors between arenas (``mem_id``): the verdict says
what a bank can hold; choosing what to spill is the user's (or a custom
pool pass's) decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from tilefit.model.capture import Memory, Range
from tilefit.model.placement import Placement
from tilefit.toolchains.executorch.capture import PLAN, TOOL
from tilefit.toolchains.executorch.plan import ArenaPlan, ProgramPlan, plan_placement
from tilefit.verdicts.headline import Headline
from tilefit.verdicts.verdict import Verdict

FITS, FRAGMENTATION, CAPACITY = Verdict.FITS, Verdict.FRAGMENTATION, Verdict.CAPACITY


@dataclass(frozen=True, slots=True)
class Tensor:
    id: str  # the FX node
    size: int
    label: str | None


@dataclass(frozen=True, slots=True)
class Spill:
    """One overloaded window: FX nodes ``first``..``last`` and the tensors live there."""

    first: int  # FX node index
    last: int
    first_node: str
    last_node: str
    must_leave: int  # bytes that must spill before any plan fits
    tensors: tuple[Tensor, ...]  # live at its worst node, largest first


@dataclass(frozen=True)
class BankVerdict:
    mem_id: int
    bank: int  # index in the banks given, fastest first
    capacity: int
    room: int  # what the plan gets: capacity less reserved bytes and extra_padding
    verdict: Verdict
    top: int | None  # the plan that fits (greedy's for fits)
    placement: Placement | None  # for fragmentation: the plan that fits, relative to the room
    must_leave: int  # for capacity: bytes that must spill from the worst window
    spills: tuple[Spill, ...] = ()
    greedy: int = 0  # the top of ExecuTorch's greedy plan

    @property
    def headline(self) -> Headline:
        """The answer in two parts, as ``diagnose`` says it of an import: greedy's own plan
        in the room the bank leaves first, then tilefit's."""
        top = self.top if self.verdict.places else None
        return Headline(
            TOOL, PLAN, self.greedy, self.room, self.verdict, top, False, self.must_leave, None
        )

    @property
    def text(self) -> str:
        head = f"arena {self.mem_id} in bank {self.bank} ({self.capacity:,} B): "
        head += self.headline.title
        if self.verdict == FITS:
            return f"{head}: greedy's plan of {self.top:,} B fits"
        if self.verdict == FRAGMENTATION and self.top is not None:
            return (
                f"{head}: greedy's {self.greedy:,} B do not fit in the {self.room:,} B left, "
                f"tilefit's {self.top:,} B do"
            )
        if self.verdict == CAPACITY:
            return f"{head}: no plan fits; at least {self.must_leave:,} B must spill"
        return head

    def lines(self, tensors: int = 5, windows: int = 3) -> list[str]:
        """The verdict, then the first ``windows`` windows' nodes and what lives there."""
        out = [self.text]
        for spill in self.spills[:windows]:
            nodes = (
                f"node {spill.first} ({spill.first_node})"
                if spill.first == spill.last
                else f"nodes {spill.first}-{spill.last} ({spill.first_node} .. {spill.last_node})"
            )
            out.append(f"  {nodes}: {spill.must_leave:,} B must spill; live there:")
            for t in spill.tensors[:tensors]:
                out.append(f"    {t.id:<40} {t.size:>10,} B  {t.label or ''}".rstrip())
            if len(spill.tensors) > tensors:
                out.append(f"    ... and {len(spill.tensors) - tensors} more")
        if len(self.spills) > windows:
            worst = max(s.must_leave for s in self.spills)
            out.append(
                f"  ... and {len(self.spills) - windows} more overloaded windows "
                f"(at most {worst:,} B over; tilefit diagnose on the capture lists them all)"
            )
        return out


def bank_verdicts(
    plan: ProgramPlan, banks: Sequence[int], time_limit: float = 10.0
) -> list[BankVerdict]:
    """Every arena tilefit planned against every bank, fastest first."""
    found: list[BankVerdict] = []
    for arena in plan.arenas:
        if arena.capture is None or arena.capture.capture is None or arena.capture.problem:
            continue
        for index, capacity in enumerate(banks):
            found.append(_verdict(plan, arena, index, capacity, time_limit))
    return found


def _verdict(
    plan: ProgramPlan, arena: ArenaPlan, index: int, capacity: int, time_limit: float
) -> BankVerdict:
    from tilefit.verdicts.diagnose import diagnose

    assert arena.capture is not None and arena.capture.capture is not None
    room = capacity - arena.reserved - plan.program.extra_padding
    verdict = BankVerdict(
        arena.mem_id, index, capacity, room, CAPACITY, None, None, 0, greedy=arena.greedy_top
    )
    if room < 1:  # the reserved bytes and the padding alone fill the bank
        return replace(verdict, must_leave=arena.lower_bound - room)
    if arena.greedy_top <= room:
        return replace(verdict, verdict=FITS, top=arena.greedy_top)
    if arena.top <= room:
        return replace(
            verdict, verdict=FRAGMENTATION, top=arena.top, placement=plan_placement(arena)
        )
    capture = arena.capture.capture
    asked = replace(capture, memory=Memory(room, (Range(0, room, f"bank {index}"),)))
    told = diagnose(asked, time_limit=time_limit)
    if told.verdict.places and told.placement is not None:
        top = max(o + asked.request_by_id[k].size for k, o in told.placement.offsets.items())
        return replace(verdict, verdict=FRAGMENTATION, top=top, placement=told.placement)
    names = plan.program.node_names
    spills = tuple(
        Spill(
            first=w.start,
            last=w.end - 1,
            first_node=_name(names, w.start),
            last_node=_name(names, w.end - 1),
            must_leave=w.must_leave,
            tensors=tuple(Tensor(r.id, r.size, r.label) for r in w.requests),
        )
        for w in told.bound.windows
    )
    return replace(verdict, verdict=told.verdict, must_leave=told.bound.must_leave, spills=spills)


def _name(names: Sequence[str], index: int) -> str:
    return names[index] if 0 <= index < len(names) else f"node {index}"
