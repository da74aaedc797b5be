"""What drives the kernel: ``solve`` (pinned blocks enumerated, the free ones searched,
orderings restarted), ``minimize`` (the lowest top) and ``subset`` (an irreducible
infeasible subset)."""
