"""A stable sort for the kernels, in place of numpy's sorts.

numba compiles ``np.argsort`` and ``np.sort`` from its own generic quicksort and
mergesort, whose compilation (with their error paths) took a fifth of the annealing
loop's; this one merge sort, written out, compiles in a fraction of that. Stable:
equal keys keep their index order, as ``np.argsort(kind="mergesort")`` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tilefit.search.kernel.jit import jit


@jit
def argsort(keys: Any, n: int) -> Any:
    """The indices 0..n-1 in the order of ``keys[:n]``, ascending, equal keys by index."""
    order = np.empty(n, np.int64)
    spare = np.empty(n, np.int64)
    for i in range(n):
        order[i] = i
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j = lo, mid
            for k in range(lo, hi):
                if j >= hi or (i < mid and keys[order[i]] <= keys[order[j]]):
                    spare[k] = order[i]
                    i += 1
                else:
                    spare[k] = order[j]
                    j += 1
        order, spare = spare, order
        width *= 2
    return order
