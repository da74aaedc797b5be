"""IREE's runtime (``iree.runtime``, the ``iree`` extra) running a compiled module.

Every public function whose arguments are tensors of known shapes is called
on the CPU (``local-task``) with inputs drawn from seeded generators, or with
a user's arrays (an ``.npz``, one array per argument, in order), and every
output is kept as bytes, so that two modules compare bit for bit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tilefit.model.errors import InputError

DRIVER = "local-task"
SEEDS = (0, 1)  # two input sets: the outputs must differ between them to tell plans apart
_TENSOR = re.compile(r"tensor<([^>]*)>")
_DTYPES = {
    "f32": "float32",
    "f16": "float16",
    "f64": "float64",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "i1": "bool",
}


@dataclass(frozen=True, slots=True)
class Argument:
    shape: tuple[int, ...]
    dtype: str


@dataclass(frozen=True, slots=True)
class Outputs:
    """Each call's outputs, as (dtype, shape, bytes), in call order."""

    calls: tuple[tuple[tuple[str, tuple[int, ...], bytes], ...], ...]


def arguments(declaration: str) -> list[Argument] | None:
    """The tensor arguments of an ``iree.abi.declaration`` (None: one is not a static tensor)."""
    head = declaration.split("->", 1)[0]
    found: list[Argument] = []
    for part in re.findall(r"%\w+: ([^,)]*(?:<[^>]*>)?)", head):
        tensor = _TENSOR.fullmatch(part.strip())
        if tensor is None:
            return None
        *dims, element = tensor.group(1).split("x")
        if element not in _DTYPES or any(not d.isdigit() for d in dims):
            return None
        found.append(Argument(tuple(int(d) for d in dims), _DTYPES[element]))
    return found


def seeded(args: Sequence[Argument], seed: int) -> list[Any]:
    import numpy as np

    rng = np.random.default_rng(seed)
    made: list[Any] = []
    for arg in args:
        if arg.dtype == "bool":
            made.append(rng.random(arg.shape) < 0.5)
        elif arg.dtype.startswith("int"):
            made.append(rng.integers(0, 8, arg.shape).astype(arg.dtype))
        else:
            made.append(rng.standard_normal(arg.shape).astype(arg.dtype))
    return made


def run_module(data: bytes, where: str, inputs: list[list[Any]] | None = None) -> Outputs:
    """Every runnable function of the module on the seeded inputs (or ``inputs``, for the
    one function), each output as bytes."""
    import numpy as np

    try:
        import iree.runtime as rt
    except ImportError:
        raise InputError(
            "", "IREE's runtime is not installed (pip install 'tilefit[iree]')", where
        ) from None
    config = rt.Config(DRIVER)
    context = rt.SystemContext(config=config)
    module = rt.VmModule.copy_buffer(context.instance, data)
    context.add_vm_module(module)
    bound = getattr(context.modules, module.name)
    calls: list[tuple[tuple[str, tuple[int, ...], bytes], ...]] = []
    runnable = _runnable(module)
    if inputs is not None and len(runnable) != 1:
        raise InputError(
            "--inputs", f"the module has {len(runnable)} functions to run, --inputs gives one"
        )
    for name, args in runnable:
        sets = inputs if inputs is not None else [seeded(args, s) for s in SEEDS]
        for given in sets:
            result = _call(bound[name], given, name, inputs is not None)
            results = result if isinstance(result, (list, tuple)) else [result]
            calls.append(
                tuple(
                    (str(a.dtype), tuple(a.shape), a.tobytes())
                    for a in (np.asarray(r) for r in results)
                )
            )
    if not calls:
        raise InputError("", "no function of the module takes only static tensors: not run", where)
    return Outputs(tuple(calls))


def _call(function: Any, given: list[Any], name: str, theirs: bool) -> Any:
    """One call; IREE's runtime refusing it (arguments of other shapes or types, a
    failure while it runs) is bad input in its own words."""
    try:
        return function(*given)
    except (RuntimeError, ValueError, TypeError) as error:
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        place = "--inputs" if theirs else f"@{name}"
        raise InputError(place, f"IREE's runtime refuses the call of @{name}: {first}") from None


def _runnable(module: Any) -> list[tuple[str, list[Argument]]]:
    found: list[tuple[str, list[Argument]]] = []
    for name in module.function_names:
        if name.startswith("__"):
            continue
        reflection = module.lookup_function(name).reflection
        args = arguments(reflection.get("iree.abi.declaration", ""))
        if args is not None:
            found.append((name, args))
    return found


def load_inputs(path: str) -> list[list[Any]]:
    """The arrays of an ``.npz`` (``numpy.savez``: arr_0, arr_1, ... in order), one call."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as archive:
            keys = sorted(archive.files, key=_key_order)
            return [[archive[k] for k in keys]]
    except (OSError, ValueError) as error:
        raise InputError("", f"not numpy's .npz of arrays: {error}", path) from None


def _key_order(key: str) -> tuple[int, str]:
    digits = key.rsplit("_", 1)[-1]
    return (int(digits) if digits.isdigit() else 1 << 30, key)
