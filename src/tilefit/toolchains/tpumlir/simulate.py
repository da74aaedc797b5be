"""A ``*_final.mlir`` finished into a bmodel and run on the chip's simulator.

``tpuc-opt --codegen`` writes the bmodel from the final.mlir alone (0.4 s here): the
plan in its ``ginfo`` addresses is what the chip runs. ``model_runner`` runs a bmodel
on the chip's cmodel (the simulator in TPU-MLIR's wheel, 3-5 s). Both run in a folder
of their own, the module's weights (``module.weight_file``, beside the final.mlir)
linked into it; the inputs are the user's ``.npz`` or seeded ones of the model's
input shapes (``module.inputs`` and the ``main`` function's arguments).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tilefit.formats.save import atomic_path, write_text_atomic
from tilefit.model.errors import InputError
from tilefit.toolchains.tpumlir.tools import Venv, run

_WEIGHTS = re.compile(r'\bmodule\.weight_file = "([^"]+)"')
_INPUTS = re.compile(r"\bmodule\.inputs = \[([^\]]*)\]")
_MAIN = re.compile(r"func\.func @main\((.*)\)\s*->")
_ARGUMENT = re.compile(r"%arg\d+: tensor<((?:\d+x)*)([a-z]+\d*)")
_DTYPES = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "ui32": np.uint32,
           "i16": np.int16, "ui16": np.uint16, "i8": np.int8, "ui8": np.uint8}  # fmt: skip
SEED = 47


@dataclass(frozen=True)
class Outputs:
    """What one bmodel's run wrote: each output array by name."""

    arrays: dict[str, np.ndarray]

    def same(self, other: Outputs) -> bool:
        """Every output equal bit for bit (same names, shapes, types, bytes)."""
        mine, theirs = self.arrays, other.arrays
        return mine.keys() == theirs.keys() and all(
            a.shape == theirs[k].shape
            and a.dtype == theirs[k].dtype
            and a.tobytes() == theirs[k].tobytes()
            for k, a in mine.items()
        )

    @property
    def varies(self) -> bool:
        """Some output holds more than one value: a changed plan can show in it."""
        return any(np.unique(a).size > 1 for a in self.arrays.values())


def weights_of(final: Path, text: str) -> Path:
    """The module's weight file, which codegen reads from its working folder."""
    match = _WEIGHTS.search(text)
    if match is None:
        raise InputError("module.weight_file", "missing: not a module TPU-MLIR deployed")
    weights = final.parent / match.group(1)
    if not weights.is_file():
        raise InputError(
            "module.weight_file",
            f"{match.group(1)} is not beside it: codegen needs the weights model_deploy wrote",
        )
    return weights


def codegen(venv: Venv, text: str, work: Path, name: str) -> Path:
    """``text`` (a final.mlir, its weights linked in ``work``) finished into
    ``work/NAME.bmodel``."""
    final = work / f"{name}_final.mlir"
    write_text_atomic(final, text)
    bmodel = work / f"{name}.bmodel"
    options = (
        f"model_file={bmodel.name} embed_debug_info=False model_version=latest "
        "bmodel_only=False gdma_check=True rvti=False"
    )
    run(venv, ["tpuc-opt", final.name, f"--codegen={options}", "-o", "/dev/null"], work)
    return bmodel


def seeded_inputs(text: str, work: Path) -> Path:
    """An ``.npz`` of seeded inputs, one array per model input, named and shaped as the
    final.mlir's ``main`` takes them."""
    names = re.findall(r'"([^"]*)"', (_INPUTS.search(text) or _no("module.inputs")).group(1))
    main = _MAIN.search(text) or _no("func.func @main")
    arguments = _ARGUMENT.findall(main.group(1))
    if len(arguments) != len(names):
        raise InputError("func.func @main", f"{len(arguments)} arguments for {len(names)} inputs")
    rng = np.random.default_rng(SEED)
    arrays = {}
    for name, (dims, element) in zip(names, arguments, strict=True):
        shape = tuple(int(d) for d in dims.split("x") if d)
        dtype = _DTYPES.get(element)
        if dtype is None:
            raise InputError("--inputs", f"input {name} is {element}: give the inputs as an .npz")
        if np.issubdtype(dtype, np.floating):
            arrays[name] = rng.standard_normal(shape).astype(dtype)
        else:
            arrays[name] = rng.integers(-8 if element.startswith("i") else 0, 8, shape, dtype)
    path = work / "inputs.npz"
    with atomic_path(path) as temp, temp.open("wb") as out:
        np.savez(out, **arrays)  # type: ignore[arg-type]
    return path


def simulate(venv: Venv, bmodel: Path, inputs: Path, work: Path) -> Outputs:
    """``model_runner``: the bmodel on the chip's simulator, its outputs read."""
    out = work / f"{bmodel.stem}.outputs.npz"
    run(
        venv,
        ["model_runner", "--input", str(inputs), "--model", bmodel.name, "--output", out.name],
        work,
    )
    with np.load(out) as found:
        return Outputs({k: found[k] for k in found.files})


def _no(what: str) -> re.Match[str]:
    raise InputError(what, "missing: not a module TPU-MLIR deployed")
