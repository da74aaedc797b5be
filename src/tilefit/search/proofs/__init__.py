"""Proofs of infeasibility cheaper than the exact search: memory elements (``elements``),
the choice of stretches (``choice``) and single steps (``steps``)."""
