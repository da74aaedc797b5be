"""A placement: an offset for every request of a capture."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tilefit.model.capture import Capture

PLACEMENT_FORMAT = "tilefit-placement"


@dataclass(frozen=True)
class Placement:
    """Offsets by request id. The checker referees it; nothing here trusts it."""

    capture: str
    offsets: Mapping[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": PLACEMENT_FORMAT,
            "version": 1,
            "capture": self.capture,
            "offsets": dict(self.offsets),
        }


def placement_top(capture: Capture, offsets: Mapping[str, int]) -> int:
    """The memory top a placement reaches: the end of its highest byte (0 when empty)."""
    by_id = capture.request_by_id
    return max((o + by_id[i].size for i, o in offsets.items()), default=0)
