"""The placement engine: a strategy places a capture's units one by one.

- ``attempt``: ``run_strategy`` and ``run_until_fits``, giving an ``Attempt``
  (its placement, or the ``Failure`` with the holes it met);
- ``strategy``: a strategy is an order composed with a fit (``ORDER/FIT``);
- ``orders`` and ``fits``: the named orders and fits (a new one goes there);
- ``space``: the valid offsets of one unit, given what is placed;
- ``occupancy``: what is placed, by time bucket;
- ``constraints``: a capture's fixed constraints per unit (allowed sets, conflicts);
- ``uniform`` and ``uniform_loop``: a large uniform capture (every request its own
  unit, no conflict, one shared allowed interval) placed by a compiled loop;
  ``sweep_loop``: its first-fit in an order of ascending starts, as an allocator's
  free list at each start.
"""
