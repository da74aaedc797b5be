"""TPU-MLIR's local memory (docs/tpumlir.md): Sophgo's tile compiler, driven and read.

Not in the toolchain registry yet (its import and export come next). What is here:

- ``tools``, ``pipeline``: TPU-MLIR's commands run from its own Python 3.10 venv
  (``TILEFIT_TPUMLIR_VENV``), a model compiled with its plan kept and the layer-group
  pass run again with the allocator's trace on;
- ``mlir``, ``final``, ``graph``: its printed MLIR: the plan (``*_final.mlir``: each
  ``tpu.Group``), who reads what (``*_tpu_opt.mlir``);
- ``fields``, ``table``, ``attempt``, ``trace``: the allocator's trace, every attempt;
- ``problem``, ``freelist``, ``banks``, ``replay``, ``agreement``: ``assignLmemAddr``
  replayed round by round and compared with the trace; ``live``: the bytes live at each
  timestep of an attempt; ``capture``: an attempt as a cyclic capture (a tensor's
  lifetime an arc on the circle of timesteps, ``arcs``), its plan as a placement.
"""
