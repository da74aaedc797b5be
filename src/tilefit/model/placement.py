"""A placement: an offset for every request of a capture."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

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
