"""What every toolchain gives: its plans in as captures, each with its own placement.

A toolchain is one subpackage of ``tilefit.toolchains`` whose ``TOOLCHAIN``
(a ``Toolchain``) says how to read the files a user names. The registry
(``tilefit.toolchains.NAMES``) names them; nothing else branches on a
toolchain's name. What every toolchain shares is here, once: its captures made
by its ``Allocator`` (one memory range, the toolchain's own heap as the origin),
a placement given back accepted by ``Toolchain.accept`` (its ids, then the one
referee of outside plans, ``tilefit.verdicts.imported.referee``), and an export's
answer (``Exported``, with ``RuntimeCheck`` where the runtime ran).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tilefit.model.capture import Capture, Memory, Origin, Range, Request
from tilefit.model.errors import InputError
from tilefit.model.placement import Placement
from tilefit.model.words import counted
from tilefit.verdicts.watch import QUIET, Watch


def files_named(paths: Sequence[str], suffix: str) -> list[Path]:
    """The files the paths name: files as given, folders searched recursively for
    ``suffix`` (hidden entries left out); each file once, in the order found."""
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found += sorted(
                p
                for p in path.rglob(f"*{suffix}")
                if p.is_file() and not any(s.startswith(".") for s in p.relative_to(path).parts)
            )
        elif path.is_file():
            found.append(path)
        else:
            raise InputError("", "no such file or folder", given)
    unique: dict[Path, Path] = {}
    for path in found:
        unique.setdefault(path.resolve(), path)
    return list(unique.values())


@dataclass(frozen=True, slots=True)
class Allocator:
    """The allocator a toolchain plans with, as its captures name it: one per toolchain."""

    tool: str  # how answers name it: "TFLM", "IREE"
    plan: str  # what it calls the memory it plans: "head", "slab" (``Origin.plan``)
    production: tuple[str, ...]  # tilefit's nearest strategy to it (``Capture.production``)
    range: str | None = None  # the memory range's name, where not ``plan`` (XLA's "temp")

    def capture(
        self,
        name: str,
        requests: Sequence[Request],
        heap: int,
        source: str,
        *,
        least: int = 1,
        capacity: int | None = None,
        horizon: int | None = None,
    ) -> Capture:
        """The capture of one plan: ``requests`` in one range, the memory the toolchain's
        own ``heap`` (no less than ``least``, its alignment) or ``capacity`` where asked;
        the horizon the requests' last end unless given."""
        size = max(heap, least) if capacity is None else capacity
        memory = Memory(size=size, ranges=(Range(0, size, self.range or self.plan),))
        return Capture(
            name=name,
            horizon=max((r.end for r in requests), default=1) if horizon is None else horizon,
            memory=memory,
            requests=tuple(requests),
            production=self.production,
            origin=Origin(self.tool, heap, source, self.plan),
        )


@dataclass(frozen=True, slots=True)
class ImportOptions:
    capacity: int | None = None  # the memory to ask about (default: the toolchain's own heap)
    alignment: int | None = None  # overrides the toolchain's known heap alignment
    flags: tuple[str, ...] = ()  # passed through to the toolchain's compiler (IREE's)


@dataclass(frozen=True)
class Imported:
    """One capture made from a toolchain's plan, with the toolchain's placement of it."""

    capture: Capture
    placement: Placement  # the toolchain's own offsets
    source: str  # the file it came from
    values: int  # the toolchain's buffers behind the requests (more where several share one)
    notes: tuple[str, ...] = ()  # what the import could not see or confirm, one line each
    # the capture with rules the toolchain's own plan keeps, which it prefers kept (the
    # bank pairs TPU-MLIR's plan keeps apart): replan looks there first for a lower plan
    preferred: Capture | None = None


@dataclass(frozen=True, slots=True)
class Skipped:
    """An input with nothing to plan (no temp heap, no tensor in the arena): not an error."""

    source: str
    reason: str


@dataclass(frozen=True)
class Reading:
    """What one read of a toolchain's inputs gave: captures, and inputs with nothing to plan."""

    imported: list[Imported]
    skipped: list[Skipped] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Sizes:
    """Bytes with the toolchain's own plan and with the exported one."""

    before: int
    after: int


@dataclass(frozen=True, slots=True)
class RuntimeCheck:
    """The toolchain's runtime run with its own plan and with the exported one: the
    outputs compared, and the memory each needed as the toolchain itself reports it."""

    plan: Sizes  # the planned section (TFLM's head from its interpreter, IREE's compiled slabs)
    whole: Sizes | None  # everything the runtime needed (TFLM's arena); None: not reported
    invocations: int  # on the same inputs
    identical: bool  # every output of every invocation equal, bit for bit
    varies: bool  # the outputs differ between invocations: the comparison can tell plans apart


@dataclass(frozen=True, slots=True)
class Banks:
    """The bank pairs a toolchain keeps apart where it can (TPU-MLIR's), and how many of
    them its own plan and the exported one put in a common bank."""

    pairs: int
    before: int
    after: int


@dataclass(frozen=True, slots=True)
class Part:
    """One plan of several in a file (an IREE pack, a TPU-MLIR group): its top before and
    after."""

    name: str  # its capture's name
    requests: int
    before: int
    after: int
    banks: Banks | None = None  # where the toolchain prefers some pairs in different banks


@dataclass(frozen=True)
class Exported:
    """A placement written back into the toolchain's own file, refereed first."""

    data: bytes  # the file as written
    before: int  # the top of the toolchain's own plan (several plans: their sum)
    after: int  # the top of the placement written
    requests: int
    runtime: RuntimeCheck | None  # None: not run
    parts: tuple[Part, ...] = ()  # each plan's, where the file holds several


@dataclass(frozen=True, slots=True)
class ExportOptions:
    run: bool = True  # run the runtime on both and compare the outputs
    flags: tuple[str, ...] = ()  # passed through to the toolchain's compiler (IREE's)
    inputs: str | None = None  # the inputs to run on (IREE: an .npz of arrays); None: seeded
    watch: Watch = QUIET  # hears each step that takes a while (a progress line, on a terminal)
    venv: str | None = None  # the toolchain's own venv, where it names one (TPU-MLIR's)


# (the toolchain's input file, the placements, the options) -> what to write
Export = Callable[[Path, Sequence[Placement], ExportOptions], Exported]


@dataclass(frozen=True, slots=True)
class Toolchain:
    """One compiler or runtime whose memory plans tilefit reads."""

    name: str  # the word after ``tilefit import``
    tool: str  # how answers name its plan ("XLA's heap", "TFLM's head")
    summary: str
    plan: str  # what its plan is called: "heap", "head"
    read: Callable[[Sequence[str], ImportOptions], Reading]
    claims: Callable[[Path], bool]  # a file that batch imports with it when found in a folder
    export: Export | None = None  # writes a placement back (None: this toolchain cannot)
    # How a user puts tilefit's plan into the toolchain, as the two-part answer names it
    # ("{placement}": the placement's file); None: the toolchain takes no plan back.
    adopt: str | None = None
    # the captures whose plans it takes back, by name (None: every one it imports);
    # TPU-MLIR runs a layer group as built, never a trace's attempt
    adopts: Callable[[str], bool] | None = None
    unit: str = "request"  # what the toolchain plans, in a refusal: "tensor", "slice"
    whole: str = "file"  # what its file holds, in a refusal: "model", "program"
    # the plans export writes into its file, where not what import reads (TPU-MLIR:
    # a final.mlir's groups as built, where import reads every attempt of the trace)
    plans: Callable[[Path], Reading] | None = None
    # checks what export needs beyond the plan (TPU-MLIR's venv), before replan searches:
    # InputError when it is missing
    ready: Callable[[ExportOptions], None] | None = None
    # the plans of one file made to agree where the toolchain ties them to each other
    # (TPU-MLIR's overlapping groups): replan's plans, one per plan of the file, in order
    reconcile: Callable[[Path, Sequence[Placement]], list[Placement]] | None = None

    def accept(self, capture: Capture, placement: Placement, shown: str) -> None:
        """Nothing when ``placement`` may go back into the toolchain's file: every offset
        names a request of ``capture`` and the one referee of outside plans accepts it
        (``tilefit.verdicts.imported.referee``); InputError naming the first fault, the
        capture called ``shown``, otherwise."""
        from tilefit.verdicts.imported import referee

        unknown = sorted(set(placement.offsets) - {r.id for r in capture.requests})
        if unknown:
            raise InputError(
                "offsets",
                f"names {counted(len(unknown), self.unit)} {shown} does not plan "
                f"({', '.join(unknown[:3])}): a placement of another {self.whole}?",
            )
        result = referee(capture, placement)
        if not result.valid:
            first = result.violations[0]
            raise InputError(
                "offsets",
                f"the referee rejects it on {shown}'s capture: "
                f"{counted(len(result.violations), 'violation')}, the first {first.kind}: "
                f"{first.detail}",
            )
