"""TPU-MLIR's local memory (docs/tpumlir.md): Sophgo's tile compiler, driven and read.

In the toolchain registry as ``tpumlir`` (``reading``: its import). What is here:

- ``tools``, ``pipeline``: TPU-MLIR's commands run from its own Python 3.10 venv
  (``TILEFIT_TPUMLIR_VENV``), a model compiled with its plan kept and the layer-group
  pass run again with the allocator's trace on;
- ``mlir``, ``final``, ``graph``: its printed MLIR: the plan (``*_final.mlir``: each
  ``tpu.Group``), who reads what (``*_tpu_opt.mlir``);
- ``fields``, ``table``, ``attempt``, ``trace``: the allocator's trace, every attempt;
- ``problem``, ``replay``, ``agreement``: an attempt as what ``assignLmemAddr`` is given
  (``tilefit.model.lmem``), replayed round by round by the one replay
  (``tilefit.engine.lmem``) and compared with the trace; ``live``: the bytes live at each
  timestep of an attempt; ``capture``: an attempt as a cyclic capture (a tensor's
  lifetime an arc on the circle of timesteps, ``arcs``), its plan as a placement, its
  production TPU-MLIR's allocator replayed from the inputs it carries (``allocator``).
"""

from __future__ import annotations

from pathlib import Path

from tilefit.toolchains.base import Toolchain
from tilefit.toolchains.tpumlir.reading import TRACE, read_traces


def _claims(path: Path) -> bool:
    return path.name.endswith(TRACE)


TOOLCHAIN = Toolchain(
    name="tpumlir",
    tool="TPU-MLIR",
    summary="TPU-MLIR's LMEM allocator: every attempt of its trace (NAME.lmem_assign.log, "
    "NAME_tpu_opt.mlir beside it for banks), failed ones included, a cyclic capture",
    plan="LMEM",
    read=read_traces,
    claims=_claims,
    unit="tensor",
    whole="model",
)

__all__ = ["TOOLCHAIN", "read_traces"]
