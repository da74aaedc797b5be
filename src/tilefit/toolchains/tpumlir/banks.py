"""Banks as TPU-MLIR's allocator keeps them: when it keeps a tensor out of the banks of
the tensor placed before it.

Where the NPU and the GDMA use two tensors in one timestep (an op there writes or reads
both, or the NPU uses one while the GDMA moves the other), TPU-MLIR places the later
one outside the earlier one's banks when it can (``update_exclude_banks``): a
preference, not a rule (it takes a bank conflict rather than fail).
"""

from __future__ import annotations

from tilefit.toolchains.tpumlir.problem import Buffer, Problem


def shares_bank_time(problem: Problem, buffer: Buffer, recent: Buffer) -> bool:
    """TPU-MLIR's ``update_exclude_banks``: over the tensor's arc, the first timestep
    where the NPU or the GDMA uses it and an op there relates the tensor placed last
    (or the NPU uses it while the GDMA moves the last one)."""
    table = problem.table
    arc = buffer.arc
    for step in range(arc.span):  # start to end, held or not, as TPU-MLIR walks it
        ts = (arc.start + step) % len(table)
        row = table[ts]
        npu_use = buffer.scratch or any(
            relates(problem, buffer, layer.name, ts, any_role=True) for layer in row.layers
        )
        gdma_use = not buffer.scratch and any(m.name == buffer.name for m in row.transfers)
        if npu_use or gdma_use:
            for layer in row.layers:
                if npu_use and not relates(problem, buffer, layer.name, ts):
                    continue
                if relates(problem, recent, layer.name, ts):
                    return True
        if npu_use and not recent.scratch and any(m.name == recent.name for m in row.transfers):
            return True
    return False


def relates(problem: Problem, buffer: Buffer, op: str, ts: int, any_role: bool = False) -> bool:
    """Whether ``op`` writes the tensor (at its first timestep) or reads it (after);
    ``any_role``: writes or reads it, whatever the timestep."""
    if buffer.scratch:  # TPU-MLIR: the op it serves, and the NPU always uses it
        return f"{op}.buffer" == buffer.name
    writes = op == buffer.name
    reads = problem.graph.reads(op, buffer.name)
    if any_role:
        return writes or reads
    return writes if ts == buffer.arc.start else reads
