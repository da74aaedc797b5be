"""Proofs of infeasibility cheaper than the exact search: memory elements (``elements``),
single steps (``steps``) and the split relaxation (``relaxation``)."""
