"""A transformer encoder's ExecuTorch arena planned by tilefit, and three memory banks asked.

Run from the repository root with the executorch extra (docs/executorch.md):

    .venv-executorch/bin/python examples/executorch/plan_encoder.py

The model is benchmarks/executorch_models.py's encoder (4 layers, width 256,
sequence 256, random weights). It writes encoder.pte and, in captures/, the
program's specs (encoder.executorch.json) and arena 1's capture with
ExecuTorch's greedy placement and tilefit's.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import torch
from executorch.exir import ExecutorchBackendConfig, to_edge
from executorch.exir.passes import MemoryPlanningPass
from torch.export import export

from tilefit.toolchains.executorch import planner

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from executorch_models import Encoder

warnings.filterwarnings("ignore", category=FutureWarning)

torch.manual_seed(0)
model = Encoder().eval()
x = torch.randn(1, 256, 256)

# a part's memories, fastest first: 2 MiB of TCM, 2.75 MiB of SRAM, 8 MiB of DRAM
banks = [2 * 2**20, 2_883_584, 8 * 2**20]
plan = planner(time_limit=10, banks=banks, captures="captures", name="encoder")
planning = MemoryPlanningPass(memory_planning_algo=plan)
program = to_edge(export(model, (x,))).to_executorch(
    ExecutorchBackendConfig(memory_planning_pass=planning)
)
print("\n".join(plan.lines()))
Path("encoder.pte").write_bytes(program.buffer)
sizes = program.exported_program().graph_module.meta["non_const_buffer_sizes"]
print(f"non_const_buffer_sizes in encoder.pte: {sizes}")
