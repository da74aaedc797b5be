"""XLA's buffer assignment in: one capture per HLO module and temp allocation.

- ``files``: which dump files make one module, its name and backend;
- ``assignment``: ``*-buffer-assignment.txt``, the allocations and their values;
- ``liverange``: ``*-live-range.txt``, the flattened sequence and each value's range;
- ``buffers``: the values as XLA's heap simulator sees them, made requests,
  and XLA's own offsets made a placement.

docs/xla.md says what each rule rests on in XLA's own code.
"""

from pathlib import Path

from tilefit.toolchains.base import Toolchain
from tilefit.toolchains.xla.buffers import ALIGNMENT, ALLOCATOR, read_dumps, read_module
from tilefit.toolchains.xla.files import ASSIGNMENT_SUFFIX, Module, find_modules


def _claims(path: Path) -> bool:
    return path.name.endswith(ASSIGNMENT_SUFFIX)


TOOLCHAIN = Toolchain(
    name="xla",
    tool=ALLOCATOR.tool,
    summary="XLA's buffer assignment, from XLA_FLAGS=--xla_dump_to=DIR (JAX, TensorFlow, "
    "PyTorch/XLA)",
    plan=ALLOCATOR.plan,
    read=read_dumps,
    claims=_claims,
)

__all__ = ["ALIGNMENT", "TOOLCHAIN", "Module", "find_modules", "read_dumps", "read_module"]
