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
- ``plans``, ``overlap``, ``reconcile``, ``rewrite``, ``simulate``, ``export``: each group of a
  ``*_final.mlir`` as built, a cyclic capture (groups TPU-MLIR overlaps in time tied); a
  placement written back into it, finished by codegen and run on the chip's simulator
  beside TPU-MLIR's own plan.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from tilefit.model.placement import Placement
from tilefit.toolchains.base import Exported, ExportOptions, Reading, Toolchain
from tilefit.toolchains.tpumlir.reading import TRACE, read_traces


def _claims(path: Path) -> bool:
    return path.name.endswith(TRACE)


def _export(final: Path, placements: Sequence[Placement], options: ExportOptions) -> Exported:
    from tilefit.toolchains.tpumlir.export import export_plans  # numpy, only when used

    return export_plans(final, placements, options)


def _ready(options: ExportOptions) -> None:
    from tilefit.toolchains.tpumlir.export import ready

    ready(options)


def _reconcile(final: Path, placements: Sequence[Placement]) -> list[Placement]:
    from tilefit.toolchains.tpumlir.reconcile import reconciled

    return reconciled(final, placements)


def _groups(final: Path) -> Reading:
    from tilefit.toolchains.tpumlir.plans import read_groups

    return read_groups(final)


def _a_group(capture: str) -> bool:
    """A layer group as built (``NAME.groupK``) goes back into its model; a trace's
    attempt (``NAME.attemptN.slices...``) is a grouping TPU-MLIR tried, not one it runs."""
    return re.search(r"\.group\d+$", capture) is not None


TOOLCHAIN = Toolchain(
    name="tpumlir",
    tool="TPU-MLIR",
    summary="TPU-MLIR's LMEM allocator: every attempt of its trace (NAME.lmem_assign.log, "
    "NAME_tpu_opt.mlir beside it for banks), failed ones included, a cyclic capture",
    plan="LMEM",
    read=read_traces,
    claims=_claims,
    export=_export,
    adopt="export it (a layer group's plan, NAME.groupK): "
    "tilefit export tpumlir NAME_final.mlir {placement} -o NAME.bmodel",
    adopts=_a_group,
    unit="tensor",
    whole="model",
    plans=_groups,
    ready=_ready,
    reconcile=_reconcile,
)

__all__ = ["TOOLCHAIN", "read_traces"]
