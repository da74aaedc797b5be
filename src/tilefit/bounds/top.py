"""No placement ends lower: ``top_lower_bound``, the least memory top's lower side.

The memory top T is the end address of the highest byte (``solve --minimize``
asks for the least T at which a placement exists). The live peak must fit in
the prefix [0, T) of the available storage, with the padding its alignments
force (``tilefit.bounds.aligned``), and each unit must fit below T at its
lowest valid base: the search knows those (``SearchModel.lowest_tops``) and
hands them in, so that this module needs the capture alone.
"""

from __future__ import annotations

from collections.abc import Iterable

from tilefit.bounds.aligned import aligned_bound
from tilefit.bounds.live import live_peak, request_spans
from tilefit.bounds.meeting import heaviest_meeting
from tilefit.model.arcs import cut_open
from tilefit.model.capture import Capture


def top_lower_bound(capture: Capture, unit_tops: Iterable[int] = ()) -> int:
    """The least top no placement can beat: the prefix of the available storage that
    holds the live peak, the aligned bound's top, and each of ``unit_tops`` (a unit's
    lowest possible top, where a caller knows them)."""
    peak, _ = live_peak(request_spans(cut_open(capture).requests))
    need = max(peak, heaviest_meeting(capture).weight) if capture.wraps else peak
    top = 0
    for span in sorted(capture.memory.ranges, key=lambda s: s.start):
        if need <= 0:
            break
        take = min(need, span.size)
        top = span.start + take
        need -= take
    return max(top, aligned_bound(capture).top, *unit_tops)
