"""Proofs of infeasibility cheaper than the exact search: memory elements (``elements``)
and single steps (``steps``)."""
