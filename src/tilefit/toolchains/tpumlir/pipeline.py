"""TPU-MLIR's pipeline as commands: a model in, its plan (``*_final.mlir``) and the
allocator's trace out.

``model_transform`` makes the top-level MLIR, ``model_deploy --debug`` lowers it for a
chip and keeps every stage (``NAME_<chip>_<quant>_tpu_opt.mlir`` before the layer
groups, ``..._final.mlir`` with the plan, ``....layer_group_debugger.json``). The trace
is the layer-group part run again from ``_tpu_opt.mlir`` with the debugger switched on
for three kinds of lines (``DEBUG_TYPES``): each group tried (``lg_info``), each
timestep table built (``timestep_assign_result``), every allocation attempt
(``lmem_assign``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tilefit.formats.save import write_text_atomic
from tilefit.toolchains.tpumlir.tools import Venv, run

DEBUG_TYPES = ("lmem_assign", "timestep_assign_result", "lg_info")
TRACE_NAME = "lmem_assign.log"


@dataclass(frozen=True, slots=True)
class Deployed:
    """What ``model_deploy --debug`` left for one model and chip."""

    folder: Path
    name: str
    chip: str
    quantize: str

    @property
    def stem(self) -> str:
        return f"{self.name}_{self.chip}_{self.quantize.lower()}"

    @property
    def tpu_opt(self) -> Path:
        return self.folder / f"{self.stem}_tpu_opt.mlir"

    @property
    def final(self) -> Path:
        return self.folder / f"{self.stem}_final.mlir"

    @property
    def debugger(self) -> Path:
        return self.folder / f"{self.stem}.layer_group_debugger.json"

    @property
    def trace(self) -> Path:
        return self.folder / f"{self.stem}.{TRACE_NAME}"


def transform(venv: Venv, folder: Path, name: str, onnx: Path, shape: list[int]) -> Path:
    """``model_transform``: the ONNX model as TPU-MLIR's top-level MLIR."""
    mlir = folder / f"{name}.mlir"
    shapes = "[[" + ",".join(str(d) for d in shape) + "]]"
    run(
        venv,
        ["model_transform", "--model_name", name, "--model_def", str(onnx),
         "--input_shapes", shapes, "--mlir", mlir.name],
        folder,
    )  # fmt: skip
    return mlir


def deploy(venv: Venv, mlir: Path, name: str, chip: str, quantize: str = "F32") -> Deployed:
    """``model_deploy --debug`` for one chip: the stages kept, the bmodel written."""
    folder = mlir.parent
    done = Deployed(folder, name, chip, quantize)
    run(
        venv,
        ["model_deploy", "--mlir", mlir.name, "--quantize", quantize, "--chip", chip,
         "--model", f"{done.stem}.bmodel", "--debug"],
        folder,
    )  # fmt: skip
    return done


def layer_group_flags(debugger: str) -> str:
    """The ``--layer-group`` options of model_deploy's own run, with the debugger on and
    the cache off (a cached group skips the allocator and so its trace)."""
    return (
        "opt=2 group_by_cores=auto compress_mode=none debugger=3 "
        f"debugger_filename={debugger} disable_group_overlap=false lgcache=false"
    )


def trace(venv: Venv, deployed: Deployed) -> Path:
    """The layer-group part again, from ``_tpu_opt.mlir``, writing the allocator's trace
    (and a ``..._traced_final.mlir`` that equals the deployed plan)."""
    settings = json.loads(deployed.debugger.read_text())
    settings["type"] = "DEBUGGER_DUMP_ALL"
    settings["conditional_debug_types"] = list(DEBUG_TYPES)
    debugger = deployed.folder / f"{deployed.stem}.trace_debugger.json"
    write_text_atomic(debugger, json.dumps(settings, indent=2))
    run(
        venv,
        ["tpuc-opt", deployed.tpu_opt.name, "--dev-parallel", "--weight-reorder",
         "--subnet-divide=dynamic=False", "--op-reorder", "--topo-sort",
         f"--layer-group={layer_group_flags(debugger.name)}", "--affine-opt",
         "--core-parallel", "--after-layergroup-weight-reorder", "--address-assign",
         "-o", f"{deployed.stem}_traced_final.mlir",
         "--debug-only=" + ",".join(DEBUG_TYPES)],
        deployed.folder,
        log=deployed.trace,
    )  # fmt: skip
    return deployed.trace
