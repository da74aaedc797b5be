"""Lifetimes on TPU-MLIR's circle of timesteps: ``Arc`` (``tilefit.model.lmem``, where
the allocator's replay finds it too)."""

from __future__ import annotations

from tilefit.model.lmem import Arc

__all__ = ["Arc"]
