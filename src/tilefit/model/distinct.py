"""The distinct values of an array, ascending: ``np.unique`` without its cost at start-up.

``np.unique`` asks ``np.ma.is_masked`` of its input, and the first call loads
``numpy.ma`` (10 ms and more, the most of any one step of a small ``diagnose``).
Sorting and keeping each value that differs from the one before gives the same array.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray


def distinct(values: NDArray[Any]) -> NDArray[Any]:
    """The values of a one-dimensional array, each once, ascending (``np.unique(values)``)."""
    ordered = np.sort(values)
    keep = np.empty(len(ordered), dtype=bool)
    keep[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]
