"""The one JSON blob the page's script reads: requests by column, maps, profile columns.

Columns (one list per field) rather than one object per request keep a
20,000-request capture to a few hundred kilobytes.
"""

from __future__ import annotations

import json
from typing import Any

from tilefit.model.capture import Capture
from tilefit.plot.series import ProfileSeries
from tilefit.report.content import MapView
from tilefit.report.svgprofile import Column


def page_data(
    capture: Capture,
    classes: tuple[str, ...],
    maps: tuple[MapView, ...],
    profile: tuple[Column, ...],
    series: ProfileSeries,
) -> dict[str, Any]:
    requests = capture.requests
    index = {r.id: k for k, r in enumerate(requests)}
    class_index = {cls: k for k, cls in enumerate(classes)}
    sequence_index = {s.id: j for j, s in enumerate(capture.sequences)}

    def node(ident: str) -> str:
        return f"s{sequence_index[ident]}" if ident in sequence_index else f"r{index[ident]}"

    return {
        "classes": list(classes),
        "requests": {
            "id": [r.id for r in requests],
            "label": [r.label or "" for r in requests],
            "size": [r.size for r in requests],
            "align": [r.alignment for r in requests],
            "cls": [class_index[r.cls] for r in requests],
            "start": [r.start for r in requests],
            "end": [r.end for r in requests],
            "il": [1 if r.interleaved else 0 for r in requests],
        },
        "sequences": [
            {"id": s.id, "members": [index[m] for m in s.members]} for s in capture.sequences
        ],
        "conflicts": [[node(c.a), node(c.b)] for c in capture.conflicts],
        "maps": {view.key: _map_data(capture, view) for view in maps},
        "profile": {
            "classes": [class_index[c] for c in series.classes],
            "start": [c.start for c in profile],
            "end": [c.end for c in profile],
            "live": [list(c.live) for c in profile],
            "limit": [c.limit for c in profile],
            "available": series.available,
        },
        "windows": [
            {
                "start": w.start,
                "end": w.end,
                "worst": w.worst_step,
                "excess": w.excess,
                "must_leave": w.must_leave,
            }
            for w in series.windows
        ],
    }


def _map_data(capture: Capture, view: MapView) -> dict[str, Any]:
    layout = view.layout
    offsets = {b.id: b.offset for b in layout.boxes}
    band = layout.failure
    return {
        "title": layout.title,
        "offsets": [offsets.get(r.id, -1) for r in capture.requests],
        "failed": None
        if band is None
        else {
            "id": band.id,
            "size": band.size,
            "alignment": band.alignment,
            "start": band.start,
            "end": band.end,
            "holes": [list(h) for h in band.holes],
        },
    }


def script_json(data: dict[str, Any]) -> str:
    """JSON safe inside a <script> element: no "<" can end it early."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")
