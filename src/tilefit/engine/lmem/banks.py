"""Banks as TPU-MLIR's allocator keeps them: when it keeps a tensor out of the banks of
the tensor placed before it.

Where the NPU and the GDMA use two tensors in one timestep (an op there writes or reads
both, or the NPU uses one while the GDMA moves the other), TPU-MLIR places the later
one outside the earlier one's banks when it can (``update_exclude_banks``): a
preference, not a rule (it takes a bank conflict rather than fail).
"""

from __future__ import annotations

from tilefit.model.lmem import LmemAllocator, Tensor


def shares_bank_time(inputs: LmemAllocator, tensor: Tensor, recent: Tensor) -> bool:
    """TPU-MLIR's ``update_exclude_banks``: over the tensor's arc, the first timestep
    where the NPU or the GDMA uses it and an op there relates the tensor placed last
    (or the NPU uses it while the GDMA moves the last one)."""
    steps = inputs.steps
    arc = tensor.arc
    for step in range(arc.span):  # start to end, held or not, as TPU-MLIR walks it
        ts = (arc.start + step) % len(steps)
        row = steps[ts]
        npu_use = tensor.scratch or any(
            relates(inputs, tensor, op, ts, any_role=True) for op in row.ops
        )
        gdma_use = not tensor.scratch and row.moves(tensor.name)
        if npu_use or gdma_use:
            for op in row.ops:
                if npu_use and not relates(inputs, tensor, op, ts):
                    continue
                if relates(inputs, recent, op, ts):
                    return True
        if npu_use and not recent.scratch and row.moves(recent.name):
            return True
    return False


def relates(
    inputs: LmemAllocator, tensor: Tensor, op: str, ts: int, any_role: bool = False
) -> bool:
    """Whether ``op`` writes the tensor (at its first timestep) or reads it (after);
    ``any_role``: writes or reads it, whatever the timestep."""
    if tensor.scratch:  # TPU-MLIR: the op it serves, and the NPU always uses it
        return f"{op}.buffer" == tensor.name
    writes = op == tensor.name
    reads = inputs.reads(op, tensor.name)
    if any_role:
        return writes or reads
    return writes if ts == tensor.arc.start else reads
