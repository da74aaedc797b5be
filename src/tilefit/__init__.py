"""tilefit: replay a tile's allocation requests; tell fragmentation from a capacity deficit."""

from __future__ import annotations

__version__ = "0.1.0"
