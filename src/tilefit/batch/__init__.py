"""Batch diagnosis: every capture of a model, one result row each, in SQLite.

The concepts, one module each:

- ``inputs``: expand files, folders and ``.jsonl`` bundles into sources;
- ``bundle``: the ``.jsonl`` bundle, one capture per line;
- ``row``: the result row of one capture;
- ``work``: the per-capture work in a worker (``--mode``), returning a row;
- ``store``: the SQLite results, one transaction per row, resume by source;
- ``run``: feed pending captures to a runner and record what comes back;
- ``runner`` (local worker processes) and ``dask_runner`` (a Dask cluster);
- ``progress``: what the user sees while a run goes (the summary is
  ``tilefit.cli.summary``, its ``--json`` ``tilefit.output.jsonout``).
"""
