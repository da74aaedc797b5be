"""A ``*_final.mlir`` checked against the trace it is handed with: the same model.

The trace is made from the ``*_tpu_opt.mlir`` module beside it (the layer-group pass
run again), so a plan of the same compile names the same module, chip and inputs (the
``module @NAME`` line's ``module.chip``, ``func.func @main``'s tensors). A final.mlir of
another model (or of the same model for another chip or input size) differs there; where
no ``_tpu_opt.mlir`` is beside the trace, the plan's groups must at least name a tensor the
trace knows (one of some attempt's). Named together, a final.mlir and a trace
must be one model's: ``NAME_final.mlir`` with ``NAME.lmem_assign.log``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tilefit.model.errors import InputError
from tilefit.toolchains.tpumlir.attempt import Attempt
from tilefit.toolchains.tpumlir.final import Group

_MODULE = re.compile(r"^\s*module @([\w.$-]+) attributes \{(.*)\} \{\s*$", re.MULTILINE)
_CHIP = re.compile(r'module\.chip = "([^"]*)"')
_MAIN = re.compile(r"func\.func @main\((.*)\)\s*->", re.MULTILINE)
_TENSOR = re.compile(r"tensor<[^,>]*")
_HEAD_BYTES = 20_000  # the module line and main's signature come first


@dataclass(frozen=True, slots=True)
class Module:
    """What names a compile: the model, the chip, main's input tensors."""

    name: str
    chip: str
    inputs: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.name} for {self.chip}, inputs {', '.join(self.inputs) or 'none'}"


def module_of(path: Path) -> Module | None:
    """The module a TPU-MLIR file holds (None: no ``module @NAME`` line read)."""
    try:
        with path.open(errors="replace") as handle:
            head = handle.read(_HEAD_BYTES)
    except OSError as error:
        raise InputError("", f"cannot read: {error.strerror}", str(path)) from None
    module = _MODULE.search(head)
    if module is None:
        return None
    chip = _CHIP.search(module.group(2))
    main = _MAIN.search(head)
    inputs = () if main is None else tuple(t + ">" for t in _TENSOR.findall(main.group(1)))
    return Module(module.group(1), "" if chip is None else chip.group(1), inputs)


def check_plan(
    final: Path,
    groups: Sequence[Group],
    trace: Path,
    attempts: Sequence[Attempt],
    tpu_opt: Path | None,
) -> None:
    """Refuse (InputError) a final.mlir that is not the trace's model's plan."""
    if tpu_opt is not None:
        plan, traced = module_of(final), module_of(tpu_opt)
        if plan is not None and traced is not None and plan != traced:
            raise InputError(
                str(final),
                f"a plan of another model: it is {plan}, the trace {trace.name} is of "
                f"{traced} ({tpu_opt.name}): hand each model's files together",
            )
    known = {t.name for a in attempts for t in a.tensors}
    ops = {op.name for g in groups for op in g.ops}  # the tensors they write or load
    if ops and not ops & known:
        raise InputError(
            str(final),
            f"none of its groups' tensors is one of the trace {trace.name} "
            f"(its: {', '.join(sorted(ops)[:3])}, ...): a plan of another model",
        )


def check_named(paths: Sequence[Path], trace_suffix: str, final_suffix: str) -> None:
    """Named together, every final.mlir must be the plan of a trace named (same stem)."""
    traces = {p.name.removesuffix(trace_suffix) for p in paths if p.name.endswith(trace_suffix)}
    if not traces:
        return
    for path in paths:
        if path.name.endswith(final_suffix):
            model = path.name.removesuffix(final_suffix)
            if model not in traces:
                named = sorted(traces)[0] + trace_suffix
                raise InputError(
                    str(path),
                    f"the plan of {model} handed beside the trace of another model ({named}): "
                    f"name {model}{trace_suffix} with it, or the final.mlir alone",
                )
