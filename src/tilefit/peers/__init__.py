"""Other solvers, measured against: CP-SAT as the general solver (``tilefit.peers.cpsat``).

They stand outside the decider: no command decides with them; the benchmarks and
tests compare against them.
"""
