"""The answer on an imported capture, in two parts and in this order: the toolchain's own
plan in the memory asked about, then tilefit's.

A verdict alone answers about tilefit's placement; on an import (``tilefit import ...
--capacity N``) a user first asks whether the toolchain as shipped fits, and "FITS" over
a toolchain plan that does not would mislead (issue 38, item 1). Every toolchain's import
goes through this one type, and ``lines`` is its one renderer: ``diagnose``, ``solve``
and the report's banner say it the same way; ``--json`` carries its fields.
"""

from __future__ import annotations

from dataclasses import dataclass

from tilefit.verdicts.heap import HeapStanding
from tilefit.verdicts.verdict import Verdict


@dataclass(frozen=True, slots=True)
class Headline:
    """The two-part answer of an import: the toolchain's plan, then tilefit's."""

    tool: str  # "TFLM"
    plan: str  # what the tool calls its plan: "head"
    heap: int  # the top of the toolchain's own plan
    available: int  # the memory asked about
    verdict: Verdict  # tilefit's
    top: int | None  # the top of tilefit's placement (None: none within the memory)
    proven: bool  # ``top`` is proven the least
    leaving: int  # capacity: bytes that must leave before any plan fits (Capacity.leaving)
    adopt: str | None  # the command that puts tilefit's plan into the toolchain (None: none)
    looked: bool = True  # ``top`` is the least searched for (else one placement's)

    @property
    def own_fits(self) -> bool:
        return self.heap <= self.available

    @property
    def over(self) -> int:
        """Bytes the toolchain's own plan needs beyond the memory (0: it fits)."""
        return max(0, self.heap - self.available)

    @property
    def saved(self) -> int:
        """Bytes tilefit's placement ends below the toolchain's plan (0: not below)."""
        return 0 if self.top is None else max(0, self.heap - self.top)

    @property
    def title(self) -> str:
        """Both answers in a few words, the toolchain's first."""
        own = "FITS" if self.own_fits else "DOES NOT FIT"
        ours = "tilefit's plan FITS" if self.verdict.places else f"tilefit: {self.verdict.upper()}"
        return f"{self.tool}'s own {self.plan} {own}; {ours}"

    @property
    def own_text(self) -> str:
        """Part 1: the toolchain's own plan in the memory asked about."""
        it = f"{self.tool}'s own plan: its {self.plan} of {self.heap:,} B"
        if self.own_fits:
            spare = self.available - self.heap
            room = f", {spare:,} B to spare" if spare else ""
            return f"{it} fits in the {self.available:,} B available{room}"
        return f"{it} needs {self.over:,} B more than the {self.available:,} B available"

    def tilefit_text(self, placement: str | None = None) -> str:
        """Part 2: tilefit's plan, and what to do with it; ``placement``: the file ``-o``
        wrote it to (None: not written)."""
        if self.verdict.places and self.top is not None:
            return self._fits_text(self.top, placement)
        if self.verdict == Verdict.CAPACITY:
            leave = f": at least {self.leaving:,} B must leave" if self.leaving else ""
            return f"tilefit: no plan can fit{leave} (capacity, below)"
        if self.verdict == Verdict.INFEASIBLE:
            return "tilefit: no plan can fit (infeasible: the search proves it, below)"
        return "tilefit: no plan found and none proven impossible (undetermined, below)"

    def _fits_text(self, top: int, placement: str | None) -> str:
        least = " (proven least)" if self.proven else ""
        below = self.heap - top
        if below > 0:
            than = f"{below:,} B less than {self.tool}'s"
        elif below == 0:
            than = f"as {self.tool}'s"
        else:
            than = f"{-below:,} B more than {self.tool}'s"
        fits = f"tilefit's plan: {top:,} B{least}, {than}, fits"
        if below <= 0:
            if self.proven:
                gain = "nothing to gain"
            elif self.looked:
                gain = "nothing lower found in the time: a larger --time-limit searches longer"
            else:
                gain = "not searched lower: tilefit solve --minimize searches"
            return f"{fits}; {gain}"
        if self.adopt is None:
            return f"{fits}; {self.tool} takes no plan back: tilefit cannot export it"
        target = placement or "PLACEMENT"
        named = "{placement}" in self.adopt
        written = " (-o PLACEMENT writes it)" if named and not placement else ""
        return f"{fits}; {self.adopt.format(placement=target)}{written}"

    def lines(self, placement: str | None = None) -> list[str]:
        """The two parts, numbered in their order, as the text output says them."""
        return [f"  1. {self.own_text}", f"  2. {self.tilefit_text(placement)}"]


def headline(
    standing: HeapStanding | None,
    verdict: Verdict,
    available: int,
    leaving: int,
    adopt: str | None,
) -> Headline | None:
    """The two-part answer of an imported capture; None for a capture not imported."""
    if standing is None:
        return None
    top = standing.best_top if verdict.places else None
    return Headline(
        standing.tool,
        standing.plan,
        standing.heap,
        available,
        verdict,
        top,
        standing.proven and top is not None,
        leaving,
        adopt,
        standing.looked,
    )
