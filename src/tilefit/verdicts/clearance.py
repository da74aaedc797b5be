"""The referee's look at a placement in numpy columns: every rule surely kept, or a walk
rule by rule (``tilefit.verdicts.check``) to list what breaks them."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from tilefit.model.capture import Capture
from tilefit.model.errors import INT_LIMIT
from tilefit.verdicts.allowed import allowed_set
from tilefit.verdicts.disjoint import none_meet


def clear_in_columns(capture: Capture, offsets: Mapping[str, int]) -> bool:
    """Whether every rule surely holds, seen in numpy columns of the requests (no object
    per placed request: a million of them took seconds): every request has an offset and
    no other id does, each offset is a multiple of its alignment and inside its allowed
    set, and no two placed requests meet. False, the rules are walked one by one, which
    lists what breaks them. Captures with sequences, conflicts or wrapping lifetimes are
    always walked."""
    requests = capture.requests
    if capture.sequences or capture.conflicts or capture.wraps or len(offsets) != len(requests):
        return False
    found = [offsets.get(r.id) for r in requests]
    if None in found:  # one missing: with as many offsets as requests, one unknown too
        return False
    low = np.array(found)  # no dtype: a float, a text or a huge offset is not made an int
    if low.dtype != np.int64:
        return False
    if len(low) and int(np.abs(low).max()) >= INT_LIMIT:
        return False
    count = len(requests)
    sizes = np.fromiter((r.size for r in requests), np.int64, count)
    aligns = np.fromiter((r.alignment for r in requests), np.int64, count)
    if np.any(low % aligns):
        return False
    high = low + sizes
    kinds = {(r.cls, r.interleaved) for r in requests}
    if len(kinds) != 1:
        return False  # several allowed sets: walked (rare, and never a million requests)
    spans = allowed_set(capture.memory, *kinds.pop())
    if not spans:
        return False
    first = np.array([a for a, _ in spans], np.int64)
    last = np.array([b for _, b in spans], np.int64)
    # The one span that could hold a request is the last starting at or below it.
    k = np.searchsorted(first, low, side="right") - 1
    if np.any(k < 0) or np.any(high > last[np.maximum(k, 0)]):
        return False
    starts = np.fromiter((r.start for r in requests), np.int64, count)
    ends = np.fromiter((r.end for r in requests), np.int64, count)
    return none_meet(starts, ends, low, high)
