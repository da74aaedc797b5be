"""Placements found fast, never a proof: the find member's routes (``find``), the
constraint-aware orders they start from (``contention``), annealing (``anneal``,
compiled in ``anneal_loop`` and ``ruin`` on the tables of ``meets``), and the best
partial placement it keeps (``partial``)."""
