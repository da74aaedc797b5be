"""The compiled branch-and-bound over canonical placements (numba when installed): its
arrays (``arrays``, ``layout``), its inner loop (``branch``, ``place``, ``frames``,
``ordering``), the resumable run of one ordering (``driver``), and the one-time
compilation (``jit``; ``tilefit.search.compiling`` runs it once)."""
