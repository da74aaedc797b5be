"""Other toolchains' memory plans: in as captures, and (where the runtime allows) out again.

- ``base``: the interface every toolchain gives (``Toolchain``, ``Imported``);
- ``xla``: XLA's buffer assignment (docs/xla.md);
- ``iree``: IREE's transient slabs, its ``stream.resource.pack`` ops, in and out (docs/iree.md);
- ``tflm``: TensorFlow Lite for Microcontrollers' arena plan, in and out (docs/tflm.md);
- ``executorch``: ExecuTorch's arenas, planned by tilefit inside its memory planning
  pass (docs/executorch.md).

``TOOLCHAINS`` names them. A toolchain's subpackage is loaded only when used,
so that ``tilefit bound`` never pays for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import import_module
from pathlib import Path

from tilefit.toolchains.base import ImportOptions, Reading, Toolchain

# name -> (module holding ``TOOLCHAIN``, one line for the help)
_WHERE = {
    "executorch": "tilefit.toolchains.executorch",
    "iree": "tilefit.toolchains.iree",
    "tflm": "tilefit.toolchains.tflm",
    "tpumlir": "tilefit.toolchains.tpumlir",
    "xla": "tilefit.toolchains.xla",
}
NAMES: tuple[str, ...] = tuple(sorted(_WHERE))


def toolchain(name: str) -> Toolchain:
    """The toolchain of that name (a KeyError names an unknown one)."""
    found: Toolchain = import_module(_WHERE[name]).TOOLCHAIN
    return found


def read(name: str, paths: Sequence[str], options: ImportOptions | None = None) -> Reading:
    """The captures the paths give to toolchain ``name``."""
    return toolchain(name).read(paths, options or ImportOptions())


def adoption(tool: str, capture: str) -> str | None:
    """How a user puts tilefit's plan of the capture named ``capture`` into the toolchain
    whose answers name it ``tool`` (``Origin.tool``), if it takes that plan back; None for
    a tool no toolchain here reads."""
    for name in NAMES:
        chain = toolchain(name)
        if chain.tool == tool:
            takes = chain.adopts is None or chain.adopts(capture)
            return chain.adopt if takes else None
    return None


def claiming(path: Path) -> Toolchain | None:
    """The toolchain that imports this file when batch finds it in a folder, if any."""
    for name in NAMES:
        chain = toolchain(name)
        if chain.claims(path):
            return chain
    return None
