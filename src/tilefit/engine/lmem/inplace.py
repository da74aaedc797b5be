"""TPU-MLIR's in-place rule: when an op's output may take its first input's slot.

TPU-MLIR's allocator (``insert_inplace_local_mem``) gives the slot back to a tensor's
free list when the two are an in-place op's first input and its output (``isInplaceOp``:
an in-place kind whose first input no other op of the group reads), the input's arc
ends at the timestep where the output's starts (the op's own: it reads the one and
writes the other element by element there), the two chain on the circle
(``can_membuf_inplace_alloc``) and, when the input was placed first, it is not stored at
that timestep. Neither may be a scratch buffer, nor the later placed a weight's tensor.
"""

from __future__ import annotations

from tilefit.model.lmem import Arc, LmemAllocator, Tensor


def in_place(
    inputs: LmemAllocator, source: Tensor, result: Tensor, source_first: bool = True
) -> bool:
    """Whether ``result`` may take ``source``'s slot in place: ``source`` is the first
    input of the in-place op writing ``result``, its arc ends where ``result``'s starts
    and the two chain. TPU-MLIR asks the rest of the tensor it is finding a block for,
    the one placed later: with ``source_first`` (``source`` placed before ``result``),
    that ``result`` is no weight's and ``source`` is not stored where it ends; else
    that ``source`` is no weight's."""
    if source.scratch or result.scratch:
        return False  # TPU-MLIR returns at once for these
    if (result if source_first else source).weight:
        return False
    writer = inputs.op_by_name.get(result.name)
    if writer is None or writer.reads[:1] != (source.name,) or not may_reuse(inputs, writer.name):
        return False
    stored = source.name in inputs.steps[source.arc.end].stores
    return not (source_first and stored) and chains(source.arc, result.arc)


def may_reuse(inputs: LmemAllocator, op: str) -> bool:
    """TPU-MLIR's ``isInplaceOp``: an in-place kind whose first input no other op of
    the group reads (as measured: the group's ops are what count, not the module's)."""
    node = inputs.op_by_name.get(op)
    if node is None or not node.in_place or not node.reads:
        return False
    first = node.reads[0]
    readers = {name for row in inputs.steps for name in row.ops if inputs.reads(name, first)}
    return len(readers) <= 1


def chains(before: Arc, after: Arc) -> bool:
    """TPU-MLIR's ``can_membuf_inplace_alloc``: the second arc starts where the first
    ends, and where one of them wraps, the second ends before the first starts."""
    if after.start != before.end:
        return False
    if before.end > before.start and after.end > after.start:
        return True
    if (before.end < before.start and after.end > after.start) or (
        before.end > before.start and after.end < after.start
    ):
        return after.end < before.start
    return False
