"""One allocation attempt of TPU-MLIR as a cyclic tilefit capture.

The chip's LMEM (one lane's) is the memory, its banks the memory elements; the attempt's
T timesteps are the capture's period. Each tensor is a request: its arc ``[start, end]``
(both ends inclusive, on the circle) the lifetime ``[start, end + 1)`` (wrapping when
TPU-MLIR's does; a held tensor, or one whose arc covers the circle, ``[0, T)``), its
bytes rounded up to the EU bytes and aligned to them (TPU-MLIR keeps every tensor's end
aligned up when it takes it out of the others' free lists, so each starts aligned).
The classes say what each tensor is (``activation``, ``weight``, ``scratch``).

Banks, as TPU-MLIR uses them, are a preference: it keeps a tensor out of the banks of
one the NPU and the GDMA use with it in one timestep when it can, and takes a conflict
rather than fail. The capture leaves them out by default (it decides what TPU-MLIR's
allocator decides); ``banks=True`` makes each such pair a conflict edge (the two touch
no common bank), for the question whether a plan keeping every one exists.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

from tilefit.engine.lmem.banks import shares_bank_time
from tilefit.engine.lmem.freelist import align_up
from tilefit.engine.lmem.inplace import in_place
from tilefit.model.capture import Capture, Conflict, Memory, Origin, Range, Request
from tilefit.model.lmem import NAME
from tilefit.model.placement import Placement
from tilefit.toolchains.tpumlir.arcs import Arc
from tilefit.toolchains.tpumlir.attempt import Attempt, TensorLine
from tilefit.toolchains.tpumlir.problem import Problem

_CLASSES = {"LMEM_ACTIVATION": "activation", "LMEM_WEIGHT": "weight", "LMEM_OPERATION": "scratch"}


def capture_of(attempt: Attempt, problem: Problem, name: str, banks: bool = False) -> Capture:
    """The attempt as a cyclic capture named ``name`` (its slices added); a failed
    attempt's observed failure is the tensor TPU-MLIR found no block for."""
    chip = attempt.chip
    period = problem.period
    requests = in_place_ends(
        problem, tuple(_request(t, period, chip.eu_bytes) for t in attempt.tensors)
    )
    failed = attempt.rounds[-1][-1].name if not attempt.success and attempt.rounds else None
    origin = None
    if attempt.success:
        origin = Origin("TPU-MLIR", attempt.lmem_used, f"slices {attempt.slices}", plan="LMEM")
    return Capture(
        name=f"{name}.slices{attempt.slices.tag}",
        horizon=period,
        memory=Memory(
            size=chip.lmem_bytes,
            ranges=(Range(0, chip.lmem_bytes),),
            elements=tuple(range(0, chip.lmem_bytes, chip.bank_bytes)),
        ),
        requests=requests,
        conflicts=bank_conflicts(problem) if banks else (),
        production=(NAME,),  # TPU-MLIR's own allocator, replayed from the capture
        observed_failed=failed,
        observed_offsets=None
        if failed is None
        else tuple((t.name, t.addr) for t in attempt.placed),
        origin=origin,
        period=period,
        allocator=problem.allocator,
    )


def placement_of(attempt: Attempt, capture: Capture) -> Placement | None:
    """TPU-MLIR's own plan of a successful attempt; None for a failed one."""
    if not attempt.success:
        return None
    return Placement(capture.name, {t.name: t.addr for t in attempt.placed})


def bank_conflicts(problem: Problem) -> tuple[Conflict, ...]:
    """Every pair TPU-MLIR would keep in different banks, whichever it placed first."""
    return tuple(
        Conflict(a.name, b.name)
        for a, b in combinations(problem.buffers, 2)
        if shares_bank_time(problem.allocator, a, b) or shares_bank_time(problem.allocator, b, a)
    )


def in_place_ends(problem: Problem, requests: tuple[Request, ...]) -> tuple[Request, ...]:
    """The requests with each in-place input's lifetime ending where its output's begins.

    At that timestep the op reads its input and writes its output element by element in
    the one slot, each element read before it is overwritten: the two are one slot
    changing hands there, not two tensors live together, so their lifetimes do not
    meet. An input is cut so only where TPU-MLIR's rule lets the output take its slot
    (``tilefit.engine.lmem.inplace``, whichever of the two it places first) and where
    no other tensor meets the input at that timestep alone: every pair but the two
    keeps meeting as before, so no plan sharing bytes between tensors live together
    passes the referee."""
    inputs = problem.allocator
    tensors = {t.name: t for t in inputs.tensors}
    by_id = {r.id: r for r in requests}
    for result in inputs.tensors:
        writer = inputs.op_by_name.get(result.name)
        source = tensors.get(writer.reads[0]) if writer is not None and writer.reads else None
        if source is None or source.arc.held or result.arc.held:
            continue
        if not (in_place(inputs, source, result) and in_place(inputs, source, result, False)):
            continue
        whole = by_id[source.name]
        cut = replace(whole, end=source.arc.end or inputs.period)
        others = [r for r in by_id.values() if r.id not in (source.name, result.name)]
        if cut.lives_with(by_id[result.name]) or any(
            whole.lives_with(r) != cut.lives_with(r) for r in others
        ):
            continue
        by_id[source.name] = cut
    return tuple(by_id[r.id] for r in requests)


def _request(tensor: TensorLine, period: int, eu_bytes: int) -> Request:
    cls = _CLASSES.get(tensor.kind, "activation")
    return request_of(tensor.name, tensor.size, tensor.arc, cls, period, eu_bytes)


def request_of(name: str, size: int, arc: Arc, cls: str, period: int, eu_bytes: int) -> Request:
    """One tensor as a request: its arc the lifetime (``[0, T)`` when held or covering the
    circle of ``period`` timesteps), its bytes rounded up to the EU bytes and aligned to them."""
    start, end = (0, period) if arc.held or arc.span >= period else (arc.start, arc.end + 1)
    return Request(
        id=name,
        size=align_up(size, eu_bytes),
        start=start,
        end=end,
        alignment=eu_bytes,
        cls=cls,
        name=name,
    )
