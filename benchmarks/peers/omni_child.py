"""One omnimalloc allocator on one trace, in a process of its own (``peers.omni`` runs it):

    omni_child.py ALLOCATOR TRACE.csv TIMEOUT

prints ``{"seconds": S, "offsets": {id: offset}}``, S the allocation alone (not reading
the trace nor importing). An allocator that takes a ``timeout`` is given TIMEOUT.
"""

from __future__ import annotations

import csv
import inspect
import json
import sys
import time


def main(name: str, source: str, timeout: float) -> None:
    from omnimalloc import Allocation, allocate
    from omnimalloc.allocators import BaseAllocator

    with open(source, encoding="utf-8") as rows:
        allocations = [
            Allocation(id=r["id"], size=int(r["size"]), start=int(r["lower"]), end=int(r["upper"]))
            for r in csv.DictReader(rows)
        ]
    kind = BaseAllocator.get(name)
    takes_timeout = "timeout" in inspect.signature(kind).parameters
    allocator = kind(timeout=timeout) if takes_timeout else kind()
    began = time.perf_counter()
    placed = allocate(allocations, allocator)
    seconds = time.perf_counter() - began
    offsets = {str(a.id): int(a.offset) for a in placed}
    print(json.dumps({"seconds": seconds, "offsets": offsets}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]))
