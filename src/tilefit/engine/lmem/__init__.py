"""TPU-MLIR's local-memory allocator (``assignLmemAddr``) replayed on what it is given
(``tilefit.model.lmem``): the one replay, for the toolchain's trace and a capture's
``allocator`` alike.

- ``freelist``: one tensor's free list, the blocks still open to it;
- ``banks``: when it keeps a tensor out of the banks of the one placed before;
- ``inplace``: when an op's output may take its first input's slot;
- ``assign``: every round, each tensor's candidate and the lowest placed.
"""
