"""Where the imported allocator's own heap stands beside tilefit's answer.

An imported capture (``tilefit import``) carries the heap its compiler made
(``Capture.origin``). Set beside the lower bounds and the best placement
tilefit found, it is one of: optimal (it equals the live lower bound, or the
aligned lower bound, the live bytes with the padding their alignments force
(``tilefit.bounds.aligned``), or the exact search proved no lower top exists),
above the best placement found (by how much, and whether that placement is
proven optimal), or not beaten.
"""

from __future__ import annotations

from dataclasses import dataclass

from tilefit.bounds.aligned import aligned_bound
from tilefit.model.capture import Capture


@dataclass(frozen=True, slots=True)
class HeapStanding:
    """A toolchain's own plan against the bounds and the best placement tilefit found."""

    tool: str
    heap: int  # the tool's own memory top
    lower_bound: int  # the live lower bound
    best_top: int | None  # the lowest top of a placement tilefit found (None: none found)
    proven: bool  # best_top is proven the lowest possible
    aligned_top: int = 0  # no placement has a lower top: the aligned bound's (AlignedBound.top)
    plan: str = "heap"  # what the tool calls it (Origin.plan)
    looked: bool = True  # the least top was searched for (else best_top is one placement's)
    placed: int | None = None  # where the tool's allocation failed: the requests it placed
    requests: int = 0  # the capture's requests
    replayed: bool = False  # the production replay is the tool's own allocator (not a stand-in)

    @property
    def complete(self) -> bool:
        """Whether the tool placed every request: else its heap is no plan's top."""
        return self.placed is None

    @property
    def floor(self) -> int:
        """No placement has a lower top than this, by the bounds."""
        return max(self.lower_bound, self.aligned_top)

    @property
    def optimal(self) -> bool:
        """No placement has a lower top than the tool's heap (never where it is incomplete)."""
        if not self.complete:
            return False
        return self.heap <= self.floor or (self.proven and self.best_top == self.heap)

    @property
    def above(self) -> int:
        """Bytes the heap lies above the best placement found (0: not beaten, or incomplete)."""
        if not self.complete:
            return 0
        return max(0, self.heap - self.best_top) if self.best_top is not None else 0

    @property
    def text(self) -> str:
        heap = f"{self.tool}'s {self.plan}"
        if self.placed is not None:  # its allocator failed: no plan, neither optimal nor above
            return (
                f"{self.tool} placed only {self.placed} of {self.requests} requests: its "
                f"{self.plan} is incomplete (at least {self.heap:,} B with the rest above it)"
            )
        if self.heap <= self.lower_bound:
            return f"{heap} is optimal (equals the live lower bound, {self.heap:,} B)"
        if self.heap <= self.floor:
            return (
                f"{heap} is optimal (equals the aligned lower bound, {self.heap:,} B: "
                f"{self.lower_bound:,} B live and the padding their alignments force)"
            )
        if self.optimal:
            return f"{heap} is optimal ({self.heap:,} B, proven by the exact search)"
        if self.above and self.best_top is not None:
            share = 100.0 * self.above / self.best_top
            proof = "proven optimal" if self.proven else "not proven optimal"
            return (
                f"{heap} is {self.heap:,} B, {self.above:,} B ({share:.1f}%) above the best "
                f"placement found ({self.best_top:,} B, {proof})"
            )
        if self.floor > self.lower_bound:
            text = (
                f"{heap} is {self.heap:,} B: {self.heap - self.floor:,} B above the aligned "
                f"lower bound of {self.floor:,} B, {self.heap - self.lower_bound:,} B above "
                "the live one"
            )
        else:
            gap = self.heap - self.lower_bound
            text = f"{heap} is {self.heap:,} B, {gap:,} B above the live lower bound"
        if self.best_top is None:
            return text
        if not self.looked:  # one placement's top: nobody searched below it
            return f"{text}; not searched below it (tilefit solve --minimize searches)"
        return f"{text}; no lower placement found"

    @property
    def replay_text(self) -> str:
        """What the production replay of an imported capture is: tilefit's strategy
        nearest the tool's planner (``Capture.production`` of an import), not the tool; or,
        where the capture carries its allocator's inputs, the tool's own allocator."""
        if self.replayed:
            return (
                f"{self.tool}'s own allocator, replayed from the capture's inputs; "
                f"a failure here is {self.tool}'s"
            )
        return (
            f"tilefit's nearest strategy to {self.tool}'s planner, not {self.tool} itself; "
            f"a failure here is not {self.tool}'s"
        )


def heap_standing(
    capture: Capture,
    lower_bound: int,
    best_top: int | None,
    proven: bool = False,
    aligned: int | None = None,
    looked: bool = True,
) -> HeapStanding | None:
    """The standing of ``capture``'s origin heap; None for a capture not imported.

    ``aligned`` is the aligned bound's lowest top (``AlignedBound.top``), worked out from
    the capture when not given; ``looked``: ``best_top`` is the least top searched for, not
    one placement's."""
    if capture.origin is None:
        return None
    if aligned is None:
        aligned = aligned_bound(capture).top
    origin = capture.origin
    allocator = capture.allocator
    replayed = allocator is not None and allocator.name in capture.production
    # A best top at the bounds' floor is proven the least by them, searched or not.
    proven = proven or (best_top is not None and best_top <= max(lower_bound, aligned))
    return HeapStanding(
        origin.tool,
        origin.heap,
        lower_bound,
        best_top,
        proven,
        aligned,
        origin.plan,
        looked,
        origin.placed,
        len(capture.requests),
        replayed,
    )
