"""Synthetic captures: IPU-like models made reproducibly from a seed (``synth``)."""
