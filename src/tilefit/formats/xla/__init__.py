"""XLA's buffer assignment in: one capture per HLO module and temp allocation.

- ``files``: which dump files make one module, its name and backend;
- ``assignment``: ``*-buffer-assignment.txt``, the allocations and their values;
- ``liverange``: ``*-live-range.txt``, the flattened sequence and each value's range;
- ``buffers``: the values as XLA's heap simulator sees them, made requests,
  and XLA's own offsets made a placement.

docs/xla.md says what each rule rests on in XLA's own code.
"""

from tilefit.formats.xla.buffers import ALIGNMENT, import_module, read_dumps
from tilefit.formats.xla.files import Module, find_modules

__all__ = ["ALIGNMENT", "Module", "find_modules", "import_module", "read_dumps"]
